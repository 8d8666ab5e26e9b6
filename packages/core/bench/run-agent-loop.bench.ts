// runAgent in a loop on an instant model: the cost of one agent run to Baton itself.
import { Agent, createBudget, runAgent } from '../src'
import { freezeAgent } from '../src/registry/freeze-agent'
import { createInstantModels } from './instant-model'

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
  const models = createInstantModels()
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

if (import.meta.url === `file://${process.argv[1]}`) {
  await runAgentLoop(Number(process.env.BENCH_RUNS ?? 20_000))
}
