// Figures for MAL at scale, on a model that answers at once: a chain of 1000 delegate steps
// (per hop), a fanout of 1000 branches (time and memory), a loop of 10 000 scratch steps, and
// validating a 1000-step plan.
// Run with `pnpm --filter @baton/mal bench`; `node --expose-gc` makes the memory figure exact.
import { createBudget, createModelRegistry, createStaticRegistry } from '@baton/core'
import { instantRegistryOptions } from '@baton/testing/instant-models'
import { parsePlan, runPlan } from '../src'

const wallet = '0x1111111111111111111111111111111111111111'
const registry = createStaticRegistry([
  {
    id: 'bench',
    wallet,
    creator: wallet,
    name: 'Bench',
    type: 'worker',
    model: 'instant:ok',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
])
const models = createModelRegistry(instantRegistryOptions({ inputTokens: 10 }))
const gc = (globalThis as { gc?: () => void }).gc

async function best(repeat: number, work: () => Promise<unknown> | unknown): Promise<number> {
  await work()
  let fastest = Infinity
  for (let index = 0; index < repeat; index++) {
    const started = performance.now()
    await work()
    fastest = Math.min(fastest, performance.now() - started)
  }
  return fastest
}

const chain = parsePlan({
  name: 'chain',
  steps: [
    ...Array.from({ length: 1000 }, (_, index) => ({
      op: 'delegate',
      saveAs: `s${index}`,
      agentWallet: wallet,
      prompt: `Step ${index}`,
    })),
    { op: 'stop', output: '{{s999}}' },
  ],
})
const chainMs = await best(3, async () => {
  const result = await runPlan(chain, { registry, models, budget: createBudget() })
  if (result.status !== 'done') throw new Error(`chain ended ${result.status}`)
})
console.log(
  `delegation chain, 1000 delegate steps: ${((chainMs * 1000) / 1000).toFixed(1)} µs per hop`,
)

const fanout = parsePlan({
  steps: [
    {
      op: 'fanout',
      saveAs: 'all',
      branches: Array.from({ length: 1000 }, (_, index) => ({
        id: `b${index}`,
        steps: [{ op: 'models_call', saveAs: `v${index}`, model: 'instant:ok', prompt: 'hi' }],
      })),
    },
    { op: 'stop', output: 'done' },
  ],
})
const fanoutMs = await best(5, async () => {
  const result = await runPlan(fanout, { registry, models })
  if (result.status !== 'done') throw new Error(`fanout ended ${result.status}`)
})
gc?.()
const before = process.memoryUsage().heapUsed
let peak = before
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().heapUsed)
}, 1)
const kept = await runPlan(fanout, { registry, models })
peak = Math.max(peak, process.memoryUsage().heapUsed)
clearInterval(sampler)
gc?.()
const retained = process.memoryUsage().heapUsed - before
console.log(
  `fanout of 1000 models_call branches: ${fanoutMs.toFixed(1)} ms; heap ${(
    (peak - before) / 2 ** 20
  ).toFixed(
    1,
  )} MiB at most while running, ${(retained / 2 ** 20).toFixed(1)} MiB kept with the result (${(
    JSON.stringify(kept).length / 2 ** 20
  ).toFixed(2)} MiB as JSON)${gc ? '' : ' (run with --expose-gc for exact figures)'}`,
)

// Steps that never wait (the interpreter's own cost per step, and what its event-loop turns add).
const scratchLoop = parsePlan({
  steps: [
    {
      op: 'loop',
      while: 'true',
      maxIters: 10_000,
      do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
    },
  ],
})
const loopMs = await best(3, async () => {
  const result = await runPlan(scratchLoop, { registry })
  if (result.status !== 'done') throw new Error(`loop ended ${result.status}`)
})
console.log(`loop of 10 000 scratch steps: ${((loopMs * 1000) / 10_001).toFixed(1)} µs per step`)

const thousand = {
  name: 'validate',
  inputs: { request: { type: 'string' } },
  steps: [
    ...Array.from({ length: 1000 }, (_, index) => ({
      op: 'delegate',
      saveAs: `s${index}`,
      agentWallet: wallet,
      prompt: `Step ${index}: {{inputs.request}}${index > 0 ? ` after {{s${index - 1}}}` : ''}`,
    })),
    { op: 'stop', output: '{{s999}}' },
  ],
}
const asText = JSON.stringify(thousand)
console.log(
  `validation, 1000-step plan (object): ${(await best(10, () => parsePlan(thousand))).toFixed(1)} ms`,
)
console.log(
  `validation, 1000-step plan (JSON text): ${(await best(10, () => parsePlan(asText))).toFixed(1)} ms`,
)
