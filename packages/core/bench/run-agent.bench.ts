// Offline runAgent throughput: how many agent runs per second the loop itself sustains
// (model calls, budget reservations, tool execution), with no network involved.
import { tool } from 'ai'
import { z } from 'zod'
import {
  Agent,
  createBudget,
  createInMemoryMemoryStore,
  createToolRegistry,
  runAgent,
} from '../src'

const agent = Agent.parse({
  id: 'bench',
  wallet: '0x52908400098527886e0f7030069857d2e4169ee7',
  creator: '0x8617e340b3d01fa5f11f306f4090fd50e238070d',
  name: 'Bench',
  type: 'worker',
  model: 'offline:default',
  tools: ['add'],
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
})
const toolRegistry = createToolRegistry({
  add: tool({
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => a + b,
  }),
})

async function measure(label: string, input: string, runs: number, withMemory = false) {
  const budget = createBudget()
  const memory = withMemory ? createInMemoryMemoryStore() : undefined
  for (let i = 0; i < 100; i++)
    await runAgent(agent, input, { budget: createBudget(), toolRegistry })
  const started = performance.now()
  for (let i = 0; i < runs; i++) {
    await runAgent(agent, input, { budget, toolRegistry, ...(memory ? { memory } : {}) })
  }
  const seconds = (performance.now() - started) / 1000
  const calls = budget.spent().calls
  console.log(
    `${label.padEnd(34)} ${(runs / seconds).toFixed(0).padStart(6)} runs/s  ${(calls / seconds)
      .toFixed(0)
      .padStart(6)} model calls/s  ($${budget.spent().costUsd.toFixed(6)} charged)`,
  )
}

const runs = Number(process.env.BENCH_RUNS ?? 500)
await measure('echo (1 model call)', 'Summarize the report', runs)
await measure('echo with memory (1 call)', 'Summarize the report', runs, true)
await measure(
  '3 tool calls (4 model calls)',
  '[[tool:add {"a":1,"b":2}]] [[tool:add {"a":3,"b":4}]] [[tool:add {"a":5,"b":6}]]',
  Math.ceil(runs / 4),
)
const heapMb = process.memoryUsage().heapUsed / 1024 / 1024
console.log(`heap used after the runs: ${heapMb.toFixed(1)} MB`)
