import { createModelRegistry, type ModelRegistry } from '@baton/core'
import { createInstantLanguageModel } from './instant-language-model'

/** The card model every Baton case runs on. */
export const INSTANT_MODEL_REF = 'instant:ok'

/**
 * Baton's model registry with the instant model registered as the `instant` provider, the
 * way an application registers its own provider. One registry for the whole process, as a
 * host would keep it.
 *
 * @example
 * await runAgent(agent, 'hi', { budget, models: createInstantModels() })
 */
export function createInstantModels(): ModelRegistry {
  const model = createInstantLanguageModel()
  return createModelRegistry({
    env: {},
    providers: { instant: () => model },
    // Priced like the offline model, so budgets and books see a cost as well as calls.
    prices: { 'instant:*': { inputPerMTok: 0.1, outputPerMTok: 0.4 } },
  })
}
