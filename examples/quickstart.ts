/**
 * Baton in one file: a registry served over real HTTP, a MAL plan that delegates to
 * registered agents (fail-closed registry checks, budgets, spend per wallet), sub-agents in
 * workspaces of their own, and the loop guard escalating a runaway A2A chain.
 * Everything runs on the offline model: no keys, no network beyond 127.0.0.1.
 *
 * Run it from the repository's root (after `pnpm install`):
 *
 *   node --import tsx --conditions=@baton/source examples/quickstart.ts
 */

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMessageBus, LoopGuardError } from '@baton/comm'
import { Agent, type AgentInput, createBudget, createRegistryClient, parseWith } from '@baton/core'
import { parsePlan, runPlan } from '@baton/mal'
import { createSupervisor } from '@baton/subagents'

const creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const stamp = new Date().toISOString()
const records: AgentInput[] = [
  {
    id: 'risk-analyst',
    wallet: '0x1111111111111111111111111111111111111111',
    creator,
    name: 'Risk Analyst',
    type: 'specialist',
    model: 'offline:default',
    persona: 'You list concrete risks, most severe first.',
    createdAt: stamp,
    updatedAt: stamp,
    agentCard: { tagline: 'Finds risks', trustTier: 'medium' },
  },
  {
    id: 'reviewer',
    wallet: '0x2222222222222222222222222222222222222222',
    creator,
    name: 'Reviewer',
    type: 'reviewer',
    model: 'offline:default',
    createdAt: stamp,
    updatedAt: stamp,
  },
]
const agents = records.map((record) => parseWith(Agent, record, 'agent'))

// 1. A registry over real HTTP: GET /agent/:wallet → 200 with the agent, or 404.
const server = createServer((request, response) => {
  const wallet = decodeURIComponent(request.url?.split('/agent/')[1] ?? '').toLowerCase()
  const agent = agents.find((candidate) => candidate.wallet.toLowerCase() === wallet)
  response.writeHead(agent ? 200 : 404, { 'content-type': 'application/json' })
  response.end(JSON.stringify(agent ?? { error: 'not registered' }))
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const address = server.address()
const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
const registry = createRegistryClient({ baseUrl })
const workspaceRoot = await mkdtemp(join(tmpdir(), 'baton-quickstart-'))

try {
  // 2. A MAL plan: delegate and task address registered wallets, never raw models.
  const plan = parsePlan(`
name: risk-review
inputs: { request: string }
budget: { maxWallMs: 60000, cost: 0.5 }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "0x1111111111111111111111111111111111111111"
    prompt: "Analyze this request and return risk notes: {{inputs.request}}"
  - op: task
    saveAs: review
    agentWallet: "0x2222222222222222222222222222222222222222"
    prompt: "Review these risk notes: {{analysis}}"
    isolation: workspace
    budget: { calls: 4 }
  - op: stop
    output: "{{review}}"
`)
  console.log('— MAL plan "risk-review" —')
  const result = await runPlan(plan, {
    inputs: { request: 'Move the billing database to a new region this weekend' },
    registry,
    workspaceRoot,
    onEvent: (event) => {
      if (event.type === 'step-finish') {
        console.log(
          `  ✓ ${event.path} ${event.op} by ${event.wallet.slice(0, 10)}… ${event.usage.calls} call(s), $${event.usage.costUsd.toFixed(6)}`,
        )
      } else if (event.type === 'step-error') {
        console.log(`  ✗ ${event.path} ${event.op}: ${event.code} ${event.message}`)
      }
    },
  })
  console.log(`  status: ${result.status}`)
  console.log(`  output: ${String(result.output).slice(0, 160)}`)
  console.log('  spend by wallet:', result.usageByWallet)

  // A wallet nobody registered fails closed: the step errors, nothing is charged.
  const unregistered = await runPlan(
    parsePlan(`
steps:
  - op: delegate
    saveAs: x
    agentWallet: "0x9999999999999999999999999999999999999999"
    prompt: "hello"
  - op: stop
    output: "{{x}}"
`),
    { registry },
  )
  console.log(`  unregistered wallet → ${unregistered.status}: ${unregistered.error?.code}`)

  // 3. Sub-agents: a coordinator splits work into children, each in its own directory and budget.
  console.log('\n— Sub-agents —')
  const budget = createBudget({ calls: 10, cost: 0.1 }, { name: 'coordinator' })
  const supervisor = createSupervisor({
    agent: agents[0]!,
    workspace: { kind: 'directory', root: workspaceRoot },
    budget,
  })
  const ids = await Promise.all([
    supervisor.delegate('List the risks of a region move.', { budget: { calls: 2 } }),
    supervisor.delegate('List the rollback steps.', { budget: { calls: 2 } }),
  ])
  const reports = await supervisor.waitAgents(ids)
  for (const [id, report] of Object.entries(reports ?? {})) {
    console.log(
      `  ${id}: ${report.status}, ${report.modelCalls} call(s), $${report.costUsd.toFixed(6)}`,
    )
  }
  console.log(
    `  parent spent: ${budget.spent().calls} call(s), $${budget.spent().costUsd.toFixed(6)}`,
  )

  // 4. The loop guard: two delegating agents bouncing one task are stopped and escalated.
  console.log('\n— Loop guard —')
  const bus = createMessageBus({ loopGuard: { maxHops: 3 } })
  bus.on('escalation', (escalation) =>
    console.log(`  escalated after ${escalation.hops} hops: ${escalation.path.join(' → ')}`),
  )
  let message = await bus.send({
    from: { agentId: 'ops' },
    to: { agentId: 'analyst' },
    content: 'Review incidents',
  })
  try {
    for (;;) {
      const next = message.to.agentId === 'analyst' ? 'ops' : 'analyst'
      message = await bus.forward(message, { agentId: next })
    }
  } catch (error) {
    if (error instanceof LoopGuardError) console.log(`  refused: ${error.code}`)
    else throw error
  }
  await bus.close()
} finally {
  server.close()
  await rm(workspaceRoot, { recursive: true, force: true })
}
