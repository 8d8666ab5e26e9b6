import type { LanguageModelV3 } from '@ai-sdk/provider'
import {
  createInstantLanguageModel,
  type InstantModelOptions,
} from './create-instant-language-model'

/** The card model every instant case runs on. */
export const INSTANT_MODEL_REF = 'instant:ok'

/** Priced like the offline model, so budgets and books see a cost as well as calls. */
export const INSTANT_PRICES = { 'instant:*': { inputPerMTok: 0.1, outputPerMTok: 0.4 } }

/**
 * The options of `@baton/core`'s `createModelRegistry` that register one instant model as the
 * `instant` provider, the way an application registers its own provider (this package does
 * not import `@baton/core`: the caller passes these on). One model for the whole registry.
 *
 * @example
 * const models = createModelRegistry(instantRegistryOptions({ inputTokens: 10 }))
 */
export function instantRegistryOptions(options: InstantModelOptions = {}): {
  env: Record<string, string>
  providers: { instant: () => LanguageModelV3 }
  prices: typeof INSTANT_PRICES
} {
  const model = createInstantLanguageModel(options)
  return { env: {}, providers: { instant: () => model }, prices: INSTANT_PRICES }
}

/**
 * A bare model registry (`languageModel`, `providers`; no price table) whose every model is
 * one instant model.
 *
 * @example
 * createSupervisor({ models: instantModelRegistry({ nested: true }), ... })
 */
export function instantModelRegistry(options: InstantModelOptions = {}): {
  languageModel: () => LanguageModelV3
  providers: () => string[]
} {
  const model = createInstantLanguageModel(options)
  return { languageModel: () => model, providers: () => ['instant'] }
}
