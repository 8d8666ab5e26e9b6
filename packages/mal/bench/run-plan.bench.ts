// Figures for MAL: how fast plans validate, and what the interpreter adds per step on top of
// the offline model. Run with `pnpm --filter @baton/mal bench`.
import { createStaticRegistry } from '@baton/core'
import { parsePlan, runPlan } from '../src'

const wallet = '0x1111111111111111111111111111111111111111'

function planText(steps: number): string {
  const lines = ['name: bench', 'inputs: { request: string }', 'budget: { cost: 10 }', 'steps:']
  for (let index = 0; index < steps; index++) {
    lines.push(
      '  - op: delegate',
      `    saveAs: s${index}`,
      `    agentWallet: "${wallet}"`,
      `    prompt: "Step ${index}: {{inputs.request}}${index > 0 ? ` after {{s${index - 1}}}` : ''}"`,
    )
  }
  lines.push('  - op: stop', `    output: "{{s${steps - 1}}}"`)
  return lines.join('\n')
}

async function time<T>(label: string, repeat: number, work: () => Promise<T> | T): Promise<number> {
  await work()
  const started = performance.now()
  for (let index = 0; index < repeat; index++) await work()
  const each = (performance.now() - started) / repeat
  console.log(`${label}: ${each.toFixed(3)} ms`)
  return each
}

const registry = createStaticRegistry([
  {
    id: 'bench',
    wallet,
    creator: wallet,
    name: 'Bench',
    type: 'worker',
    model: 'offline:default',
    persona: '[[answer:ok]]',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
])

const small = planText(5)
const large = planText(200)
await time('parsePlan, 5 steps (YAML)', 200, () => parsePlan(small))
await time('parsePlan, 200 steps (YAML)', 20, () => parsePlan(large))

const parsed = parsePlan(small)
const models = planText(1)
  .replace('op: delegate', 'op: models_call')
  .replace(`agentWallet: "${wallet}"`, 'model: offline:default')
const direct = await time('runPlan, 1 models_call + stop', 50, () =>
  runPlan(models, { registry, inputs: { request: 'x' } }),
)
const five = await time('runPlan, 5 delegate steps + stop (offline runAgent)', 20, () =>
  runPlan(parsed, { registry, inputs: { request: 'x' } }),
)
console.log(`per delegate step (registry + runAgent + events): ${(five / 5).toFixed(3)} ms`)

const fanout = parsePlan({
  steps: [
    {
      op: 'fanout',
      saveAs: 'all',
      branches: Array.from({ length: 50 }, (_, index) => ({
        id: `b${index}`,
        steps: [{ op: 'models_call', saveAs: `v${index}`, model: 'offline:x', prompt: 'hi' }],
      })),
    },
  ],
})
await time('runPlan, fanout of 50 models_call branches', 10, () => runPlan(fanout, { registry }))
const result = await runPlan(parsed, { registry, inputs: { request: 'x' } })
console.log(
  `a finished 5-step run result as JSON (events included): ${JSON.stringify(result).length} bytes`,
)
const paused = await runPlan(
  {
    steps: [
      { op: 'ask_user', saveAs: 'a', question: 'ok?' },
      { op: 'stop', output: '{{a}}' },
    ],
  },
  { registry },
)
console.log(`a paused run's state as JSON: ${JSON.stringify(paused.state).length} bytes`)
console.log(`(direct model step, for comparison: ${direct.toFixed(3)} ms)`)
