// 100 sub-agents race for one parent budget on the offline model. Prints the parent's limit
// against what was spent (it must never be more), and how long the race took.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BudgetInput, createBudget } from '@baton/core'
import { createSupervisor } from '@baton/subagents'
import { benchAgent } from './bench-agent'

const CHILDREN = 100
const ROUNDS = 2
// The parent's limits, and each child's (default: all that is left). Under a cost limit each
// model call first reserves what it may cost; a child's own small cost bounds that reservation.
const SCENARIOS: { parent: BudgetInput; child?: BudgetInput }[] = [
  { parent: { calls: 150 } },
  { parent: { costUsd: 0.01 } },
  { parent: { costUsd: 0.003 }, child: { costUsd: 0.0001 } },
  { parent: { calls: 150, costUsd: 0.003 }, child: { calls: 4, costUsd: 0.0001 } },
]
const agent = benchAgent
// Each child would make 6 calls (5 tool calls and an answer): 600 wanted against 150 allowed.
const task = `Survey your part ${'[[tool:list_files {}]]'.repeat(5)}`

const rows: string[] = []
let worstOverspend = 0
for (const [scenario, { parent: limits, child }] of SCENARIOS.entries())
  for (let round = 1; round <= ROUNDS; round += 1) {
    const root = await mkdtemp(path.join(tmpdir(), 'baton-race-'))
    const budget = createBudget(limits, { name: 'race' })
    const supervisor = createSupervisor({ agent, workspace: { kind: 'directory', root }, budget })
    const heapBefore = process.memoryUsage().heapUsed
    const started = performance.now()
    const ids = Array.from({ length: CHILDREN }, (_, index) =>
      supervisor.delegate(`${task} (part ${index})`, child ? { budget: child } : {}),
    )
    const reports = Object.values((await supervisor.waitAgents(ids)) ?? {})
    const elapsed = performance.now() - started
    const heapAfter = process.memoryUsage().heapUsed
    const spent = budget.spent()
    const byStatus = new Map<string, number>()
    for (const report of reports)
      byStatus.set(report.status, (byStatus.get(report.status) ?? 0) + 1)
    worstOverspend = Math.max(
      worstOverspend,
      spent.calls - (limits.calls ?? Infinity),
      spent.costUsd - (limits.costUsd ?? Infinity),
    )
    rows.push(
      [
        `scenario ${scenario + 1} round ${round}${child ? ` (child ${JSON.stringify(child)})` : ''}`,
        `calls ${spent.calls}/${limits.calls ?? '∞'}`,
        `cost $${spent.costUsd.toFixed(7)}/${limits.costUsd === undefined ? '∞' : `$${limits.costUsd}`}`,
        `statuses ${[...byStatus].map(([status, count]) => `${status}=${count}`).join(' ')}`,
        `${elapsed.toFixed(0)} ms`,
        `heap ${heapAfter >= heapBefore ? '+' : ''}${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB (GC may run mid-race)`,
      ].join(' | '),
    )
    await supervisor.cleanup()
    await rm(root, { recursive: true, force: true })
  }

console.log(`race: ${CHILDREN} children, each wanting 6 offline calls, under one parent budget`)
for (const row of rows) console.log(row)
console.log(
  worstOverspend > 0 ? `OVERSPENT by ${worstOverspend}` : 'parent never overspent (calls or cost)',
)
