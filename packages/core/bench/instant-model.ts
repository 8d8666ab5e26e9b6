import type { LanguageModelV3, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { createModelRegistry, type ModelRegistry } from '../src'

/** A language model that answers "ok" at once: what is measured is Baton, not a model. */
export function createInstantModel(): LanguageModelV3 {
  const result: LanguageModelV3GenerateResult = {
    content: [{ type: 'text', text: 'ok' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  }
  return {
    specificationVersion: 'v3',
    provider: 'instant',
    modelId: 'ok',
    supportedUrls: {},
    doGenerate: async () => result,
    doStream: async () => {
      throw new Error('the instant model does not stream')
    },
  }
}

/** One registry for the whole process, as a host keeps it. */
export function createInstantModels(): ModelRegistry {
  const model = createInstantModel()
  return createModelRegistry({
    env: {},
    providers: { instant: () => model },
    prices: { 'instant:*': { inputPerMTok: 0.1, outputPerMTok: 0.4 } },
  })
}
