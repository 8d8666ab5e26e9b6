// How long cancelAgent takes to stop a three-level tree with two external agents (each with a
// helper process) that bill every 50 ms, and whether anything is charged after it returns.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createBudget } from '@baton/core'
import { createSupervisor, type SubagentTreeNode } from '@baton/subagents'
import { benchAgent } from './bench-agent'

const ROUNDS = 3
const standIn = fileURLToPath(
  new URL('../src/adapters/__fixtures__/stand-in-agent.mjs', import.meta.url),
)
const agent = benchAgent
const escapeBrackets = (json: string) => json.replace(/\[/g, '\\u005b').replace(/\]/g, '\\u005d')
const tool = (name: string, args: object = {}) =>
  `[[tool:${name} ${escapeBrackets(JSON.stringify(args))}]]`
const billing = JSON.stringify({ sleepMs: 60_000, usageEveryMs: 50, helper: true })
const external = tool('delegate_agent', { task: billing, agent: 'stand-in' })
const task = `${external}${tool('delegate_agent', { task: `${external}${tool('wait_agents')}` })}${tool('wait_agents')}`

const flatten = (nodes: SubagentTreeNode[]): SubagentTreeNode[] =>
  nodes.flatMap((node) => [node, ...flatten(node.children)])

console.log(
  'cancel: a three-level tree with 2 external agents (and their helpers), billing every 50 ms',
)
for (let round = 1; round <= ROUNDS; round += 1) {
  const root = await mkdtemp(path.join(tmpdir(), 'baton-cancel-'))
  const budget = createBudget({ cost: 5 })
  const supervisor = createSupervisor({
    agent,
    budget,
    workspace: { kind: 'directory', root },
    adapters: { 'stand-in': { command: process.execPath, args: (text) => [standIn, text] } },
  })
  const id = supervisor.delegate(task)
  while (flatten(supervisor.tree()).filter((node) => node.pid !== undefined).length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const started = performance.now()
  await supervisor.cancelAgent(id)
  const elapsed = performance.now() - started
  const atCancel = budget.spent()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const later = budget.spent()
  console.log(
    [
      `round ${round}`,
      `cancelAgent ${elapsed.toFixed(0)} ms`,
      `charged before ${atCancel.calls} calls $${atCancel.costUsd.toFixed(4)}`,
      `charged in the 500 ms after: ${later.calls - atCancel.calls} calls`,
    ].join(' | '),
  )
  await supervisor.cleanup()
  await rm(root, { recursive: true, force: true })
}
