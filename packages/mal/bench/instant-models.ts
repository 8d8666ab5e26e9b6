import { createModelRegistry, type ModelRegistry } from '@baton/core'

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
type GenerateResult = Awaited<ReturnType<LanguageModel['doGenerate']>>

/** A model registry whose `instant:*` model answers "ok" at once: the figures are MAL's own. */
export function createInstantModels(): ModelRegistry {
  const result: GenerateResult = {
    content: [{ type: 'text', text: 'ok' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  }
  const model: LanguageModel = {
    specificationVersion: 'v3',
    provider: 'instant',
    modelId: 'ok',
    supportedUrls: {},
    doGenerate: async () => result,
    doStream: async () => {
      throw new Error('the instant model does not stream')
    },
  }
  return createModelRegistry({
    env: {},
    providers: { instant: () => model },
    prices: { 'instant:*': { inputPerMTok: 0.1, outputPerMTok: 0.4 } },
  })
}
