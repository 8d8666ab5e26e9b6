import { createBudget, createStaticRegistry } from '@baton/core'
import { parsePlan, runPlan } from '@baton/mal'
import { benchAgentInput, benchWallet } from './fixtures'
import { createInstantModels } from './instant'
const count = 200
const registry = createStaticRegistry([benchAgentInput])
const models = createInstantModels()
const plan = parsePlan({ name: 'chain', steps: [...Array.from({ length: count }, (_, index) => ({ op: 'delegate' as const, saveAs: `s${index}`, agentWallet: benchWallet, prompt: `Step ${index}` })), { op: 'stop' as const, output: `{{s${count - 1}}}` }] })
const once = () => runPlan(plan, { registry, models, budget: createBudget() })
for (let i = 0; i < 5; i++) await once()
const samples: number[] = []
for (let round = 0; round < 15; round++) {
  const started = performance.now()
  for (let i = 0; i < 3; i++) await once()
  samples.push(((performance.now() - started) * 1000) / (3 * count))
}
samples.sort((a, b) => a - b)
console.log(process.env.LABEL, 'min', samples[0]!.toFixed(1), 'median', samples[7]!.toFixed(1))
