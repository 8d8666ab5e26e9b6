import type { LanguageModelV3Middleware } from '@ai-sdk/provider'
import { BudgetCharger, type BudgetMiddlewareOptions } from './budget-charger'

export {
  type BudgetMiddlewareOptions,
  type CallCharge,
  DEFAULT_MAX_OUTPUT_TOKENS,
} from './budget-charger'
export { estimateInputTokens } from './estimate-input-tokens'

/**
 * Language model middleware that makes every call pay its way: it reserves one call and an
 * estimate of tokens and cost on the budget before the call (a refused reservation means no
 * call), caps `maxOutputTokens` by the tokens and money left, and settles the real usage
 * afterwards (a provider that reports no usage is charged the whole allowance). So a run can
 * go past a tokens or cost limit only by what its input estimate missed. A call that does not
 * fit while other calls on the budget tree hold reservations waits for them to settle (or for
 * an abort) instead of failing on money they have not spent.
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: budgetMiddleware({ budget, model: 'offline:default', prices: defaultPriceTable }) })
 */
export function budgetMiddleware(
  options: BudgetMiddlewareOptions,
): LanguageModelV3Middleware &
  Required<Pick<LanguageModelV3Middleware, 'wrapGenerate' | 'wrapStream'>> {
  const charger = new BudgetCharger(options)
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ params, model }) => charger.generate(params, model),
    wrapStream: ({ params, model }) => charger.stream(params, model),
  }
}
