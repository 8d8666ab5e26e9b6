import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider'
import type { BudgetCharger } from './budget-charger'

/**
 * A run's model: each call goes through the run's `BudgetCharger` (reserved before, settled
 * after), as `wrapLanguageModel` with `budgetMiddleware` would do it, without the SDK's extra
 * async layer and its closures per call (an agent hop makes a run, and a run this model).
 *
 * @example
 * const model = new BudgetedModel(base, new BudgetCharger({ budget, model: 'offline:default', prices }))
 */
export class BudgetedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3'
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: LanguageModelV3['supportedUrls']
  readonly #model: LanguageModelV3
  readonly #charger: BudgetCharger

  constructor(model: LanguageModelV3, charger: BudgetCharger) {
    this.#model = model
    this.#charger = charger
    this.provider = model.provider
    this.modelId = model.modelId
    this.supportedUrls = model.supportedUrls
  }

  doGenerate(params: LanguageModelV3CallOptions): ReturnType<LanguageModelV3['doGenerate']> {
    return this.#charger.generate(params, this.#model)
  }

  doStream(params: LanguageModelV3CallOptions): ReturnType<LanguageModelV3['doStream']> {
    return this.#charger.stream(params, this.#model)
  }
}
