import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider'

/**
 * `model` with the budget middleware's `wrapGenerate` and `wrapStream` around its calls: what
 * the AI SDK's `wrapLanguageModel` does for a middleware without `transformParams`, without its
 * extra async layer and its closures per call (a run makes one such model, an agent hop many
 * runs).
 *
 * @example
 * const model = budgetedModel(base, budgetMiddleware({ budget, model: 'offline:default', prices }))
 */
export function budgetedModel(
  model: LanguageModelV3,
  middleware: Required<Pick<LanguageModelV3Middleware, 'wrapGenerate' | 'wrapStream'>>,
): LanguageModelV3 {
  const { wrapGenerate, wrapStream } = middleware
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (params) =>
      wrapGenerate({
        params,
        model,
        doGenerate: () => model.doGenerate(params),
        doStream: () => model.doStream(params),
      }),
    doStream: (params) =>
      wrapStream({
        params,
        model,
        doGenerate: () => model.doGenerate(params),
        doStream: () => model.doStream(params),
      }),
  }
}
