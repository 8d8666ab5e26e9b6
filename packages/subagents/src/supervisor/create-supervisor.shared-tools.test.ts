import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { type Agent, createBudget, createToolRegistry } from '@baton/core'
import { tool } from 'ai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgentRunner } from '../runner/create-agent-runner'
import type { SubagentRunner, SubagentTurn } from '../runner/types'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'
import { SubagentToolContextError } from './shared-turn-tools'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

// What a sub-agent of `makeAgent()` is granted, in the order its card records it.
const GRANT = [
  'read_file',
  'write_file',
  'list_files',
  'delegate_agent',
  'wait_agents',
  'send_agent',
  'cancel_agent',
  'ask_caller',
]

/** The default runner, watched: the same object (so it is still the default), its turns kept. */
function watchedDefaultRunner(): { runner: SubagentRunner; turns: SubagentTurn[] } {
  const runner = createAgentRunner()
  const turns: SubagentTurn[] = []
  const run = runner.run.bind(runner)
  runner.run = (turn) => {
    turns.push(turn)
    return run(turn)
  }
  return { runner, turns }
}

/** A supervisor of `agent` on a watched default runner. */
function superviseWatched(agent: Agent) {
  const { runner, turns } = watchedDefaultRunner()
  const supervisor = createSupervisor({
    agent,
    workspace: { kind: 'directory', root },
    budget: createBudget({ calls: 100 }),
    runner,
  })
  return { supervisor, turns }
}

/**
 * Two sub-agents on a runner of its own that calls `write_file` itself (with the turn's
 * context or without it, as it declares) before the default runner's turn; each must have
 * written its task into its own `direct.md`. Returns the turns it was given.
 */
async function twoDirectWrites(passesToolContext: boolean): Promise<SubagentTurn[]> {
  const base = createAgentRunner()
  const turns: SubagentTurn[] = []
  const runner: SubagentRunner = {
    filesOnlyThroughTools: true,
    passesToolContext,
    async run(turn) {
      turns.push(turn)
      await turn.tools.write_file!.execute!(
        { path: 'direct.md', content: turn.messages.at(-1)!.content as string },
        passesToolContext
          ? { toolCallId: 'direct', messages: [], experimental_context: turn.toolContext }
          : { toolCallId: 'direct', messages: [] },
      )
      return base.run(turn)
    },
  }
  const supervisor = createSupervisor({
    agent: makeAgent(),
    workspace: { kind: 'directory', root },
    budget: createBudget({ calls: 100 }),
    runner,
  })
  const ids = ['one', 'two'].map((task) => supervisor.delegate(task))
  const reports = (await supervisor.waitAgents(ids)) ?? {}
  for (const [index, task] of ['one', 'two'].entries()) {
    const report = reports[ids[index]!]!
    expect(report.status).toBe('done')
    expect(report.files).toEqual(['direct.md'])
    expect(await readFile(path.join(report.directory, 'direct.md'), 'utf8')).toBe(task)
  }
  return turns
}

describe('the tools of sub-agents on the default runner', () => {
  it('are made once per tree, and each call still works in its own sub-agent', async () => {
    const { runner, turns } = watchedDefaultRunner()
    const seen: unknown[] = []
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: ['read_file', 'write_file', 'list_files', 'peek'] }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 100 }),
      runner,
      // A tool of the registry is handed the same context, and finds nothing in it.
      toolRegistry: createToolRegistry({
        peek: tool({
          inputSchema: z.object({}),
          execute: async (_input, options) => {
            seen.push(options.experimental_context)
            return Object.keys(options.experimental_context as object).length
          },
        }),
      }),
    })
    const ids = ['first', 'second', 'third'].map((word) =>
      supervisor.delegate(
        `${directive('write_file', { path: 'same.md', content: word })}${directive('peek')}${directive('delegate_agent', { task: `Nested under ${word} ${directive('write_file', { path: 'inner.md', content: word })}` })}${directive('wait_agents')}`,
      ),
    )
    const reports = (await supervisor.waitAgents(ids)) ?? {}
    expect(ids.map((id) => reports[id]?.status)).toEqual(['done', 'done', 'done'])
    // Each wrote in its own directory, and each one's sub-agent in its own.
    for (const [index, word] of ['first', 'second', 'third'].entries()) {
      const report = reports[ids[index]!]!
      expect(await readFile(path.join(report.directory, 'same.md'), 'utf8')).toBe(word)
      expect(report.files).toEqual(['same.md'])
      // Every sub-agent's directory is right below the tree's root, however deep it is.
      const nested = path.join(root, '.subagents', `${ids[index]}.1`, 'inner.md')
      expect(await readFile(nested, 'utf8')).toBe(word)
    }
    // Six turns (three sub-agents, three of theirs), one set of tools, a context each.
    expect(turns).toHaveLength(6)
    expect(new Set(turns.map((turn) => turn.tools)).size).toBe(1)
    expect(new Set(turns.map((turn) => turn.toolContext)).size).toBe(6)
    expect(Object.keys(turns[0]!.tools)).toEqual(GRANT)
    // The grant is on each card, as it was with tools of its own.
    expect([...turns[0]!.agent.tools!].sort()).toEqual(
      [...Object.keys(turns[0]!.tools), 'peek'].sort(),
    )
    expect(seen).toHaveLength(3)
    expect(seen.map((context) => Object.keys(context as object))).toEqual([[], [], []])
  })

  it("answers each one's question to it", async () => {
    const { supervisor, turns } = superviseWatched(makeAgent())
    const ids = ['red', 'blue'].map(() =>
      supervisor.delegate(directive('ask_caller', { question: 'Which colour?' })),
    )
    const asked = (await supervisor.waitAgents(ids)) ?? {}
    expect(ids.map((id) => asked[id]?.status)).toEqual(['asking', 'asking'])
    supervisor.sendAgent(ids[1]!, 'blue')
    supervisor.sendAgent(ids[0]!, 'red')
    const reports = (await supervisor.waitAgents(ids)) ?? {}
    expect(reports[ids[0]!]?.result).toContain('"answer":"red"')
    expect(reports[ids[1]!]?.result).toContain('"answer":"blue"')
    expect(turns[0]!.tools).toBe(turns[1]!.tools)
  })

  it('refuses a call made without the turn context, by name', async () => {
    const { supervisor, turns } = superviseWatched(makeAgent())
    const id = supervisor.delegate('Report')
    await supervisor.waitAgents([id])
    const write = turns[0]!.tools.write_file!.execute!
    await expect(
      write({ path: 'x.md', content: 'x' }, { toolCallId: 'direct', messages: [] }),
    ).rejects.toBeInstanceOf(SubagentToolContextError)
    await expect(
      write({ path: 'x.md', content: 'x' }, { toolCallId: 'direct', messages: [] }),
    ).rejects.toThrow(
      /without its sub-agent: a runner that passesToolContext hands turn.toolContext/,
    )
  })

  it('gives a runner of its own tools bound to the sub-agent, which it may call directly', async () => {
    const turns = await twoDirectWrites(false)
    expect(turns.map((turn) => turn.toolContext)).toEqual([undefined, undefined])
    // Granted as the shared tools are, in the same order, and recorded on the card alike.
    expect(Object.keys(turns[0]!.tools)).toEqual(GRANT)
    expect(turns[0]!.agent.tools).toEqual(GRANT)
    expect(turns[0]!.tools).not.toBe(turns[1]!.tools)
  })

  it('gives a runner of its own that passes the context the shared tools, and its calls work', async () => {
    const turns = await twoDirectWrites(true)
    expect(turns[0]!.tools).toBe(turns[1]!.tools)
  })

  it('makes other tools for a card that grants differently, and reuses them when it grants the same again', async () => {
    const agent = makeAgent()
    const { supervisor, turns } = superviseWatched(agent)
    const run = async (task: string) => {
      const id = supervisor.delegate(task)
      expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
    }
    await run('a')
    // The caller's card changes between two delegations: its next sub-agent is granted that.
    const tools = agent.tools
    agent.tools = ['read_file']
    agent.agentCard = { ...agent.agentCard, canDelegate: false }
    await run('b')
    agent.tools = tools
    agent.agentCard = { ...agent.agentCard, canDelegate: true }
    await run('c')
    expect(Object.keys(turns[1]!.tools)).toEqual(['read_file', 'ask_caller'])
    expect(turns[1]!.agent.tools).toEqual(['read_file', 'ask_caller'])
    expect(turns[1]!.tools).not.toBe(turns[0]!.tools)
    expect(turns[2]!.tools).toBe(turns[0]!.tools)
  })
})
