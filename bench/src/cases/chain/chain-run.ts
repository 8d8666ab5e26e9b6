import { createBudget, createStaticRegistry } from '@baton/core'
import { parsePlan, runPlan } from '@baton/mal'
import { benchAgentInput, benchWallet } from '../../fixtures'
import { createInstantModels } from '../../instant'
import { assertDone } from '../assert-done'

/**
 * Baton's side of the chain: a parsed plan of `count` `delegate` steps to one registered agent
 * on the instant model, then a `stop`; returns the function that runs it once (and checks it
 * finished).
 *
 * @example
 * const run = chainRun(1000)
 * await run()
 */
export function chainRun(count: number): () => Promise<void> {
  const registry = createStaticRegistry([benchAgentInput])
  const models = createInstantModels()
  const plan = parsePlan({
    name: 'chain',
    steps: [
      ...Array.from({ length: count }, (_, index) => ({
        op: 'delegate' as const,
        saveAs: `s${index}`,
        agentWallet: benchWallet,
        prompt: `Step ${index}`,
      })),
      { op: 'stop' as const, output: `{{s${count - 1}}}` },
    ],
  })
  return async () => {
    assertDone(await runPlan(plan, { registry, models, budget: createBudget() }))
  }
}
