// runAgent in a loop on an instant model: the cost of one agent run to Baton itself.

import { instantRegistryOptions } from '@baton/testing/instant-models'
import { Agent, createBudget, createModelRegistry, createStaticRegistry, runAgent } from '../src'
import { freezeAgent } from '../src/registry/freeze-agent'

const agent = freezeAgent(
  Agent.parse({
    id: 'bench',
    wallet: '0x52908400098527886e0f7030069857d2e4169ee7',
    creator: '0x8617e340b3d01fa5f11f306f4090fd50e238070d',
    name: 'Bench',
    type: 'worker',
    model: 'instant:ok',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }),
)

export async function runAgentLoop(runs: number): Promise<void> {
  const models = createModelRegistry(instantRegistryOptions({ inputTokens: 10 }))
  const warm = createBudget()
  for (let i = 0; i < 2000; i++) await runAgent(agent, 'hi', { budget: warm, models })
  const budget = createBudget()
  const started = performance.now()
  const cpu = process.cpuUsage()
  for (let i = 0; i < runs; i++) await runAgent(agent, 'hi', { budget, models })
  const { user, system } = process.cpuUsage(cpu)
  const wall = ((performance.now() - started) * 1000) / runs
  // CPU time is what the code costs; wall time also counts whatever else the machine runs.
  console.log(
    `runAgent in a loop (instant model)  ${((user + system) / runs).toFixed(2).padStart(8)} µs CPU/run ${wall.toFixed(2).padStart(8)} µs wall/run  (${runs} runs, ${budget.spent().calls} calls charged)`,
  )
}

/**
 * Core's share of one delegation hop: a cached registry look-up, a child budget carved from the
 * run's, and a run with the caller's signal, on an instant model.
 */
export async function delegationHops(hops: number): Promise<void> {
  const models = createModelRegistry(instantRegistryOptions({ inputTokens: 10 }))
  const registry = createStaticRegistry([agent])
  const caller = new AbortController()
  // Room for every hop and more: the tree is measured, not the exhaustion at its end.
  const root = createBudget({ calls: 2 * hops + 2000 })
  const hop = async () => {
    const target = await registry.ensureRegisteredAgent(agent.wallet)
    const budget = root.child()
    await runAgent(target, 'hi', { budget, models, signal: caller.signal })
  }
  for (let i = 0; i < 2000; i++) await hop()
  const started = performance.now()
  const cpu = process.cpuUsage()
  for (let i = 0; i < hops; i++) await hop()
  const { user, system } = process.cpuUsage(cpu)
  const wall = ((performance.now() - started) * 1000) / hops
  console.log(
    `delegation hop (look-up, child budget, run) ${((user + system) / hops).toFixed(2).padStart(8)} µs CPU/hop ${wall.toFixed(2).padStart(8)} µs wall/hop  (${hops} hops)`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runAgentLoop(Number(process.env.BENCH_RUNS ?? 20_000))
  await delegationHops(Number(process.env.BENCH_RUNS ?? 20_000))
}
