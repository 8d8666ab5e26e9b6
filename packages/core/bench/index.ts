// Every benchmark of @baton/core, one after the other. Figures only: no test asserts a timing.
import { budgetTree } from './budget-tree.bench'
import { registry } from './registry.bench'
import { delegationHops, runAgentLoop } from './run-agent-loop.bench'

await runAgentLoop(Number(process.env.BENCH_RUNS ?? 20_000))
await delegationHops(Number(process.env.BENCH_RUNS ?? 20_000))
await budgetTree()
await registry()
await import('./run-agent.bench')
