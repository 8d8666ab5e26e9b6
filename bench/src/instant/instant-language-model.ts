import type {
  LanguageModelV3,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'

/** What the instant model answers, to everyone. */
export const INSTANT_ANSWER = 'ok'

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/**
 * A `LanguageModelV3` that answers "ok" at once, without reading its prompt: whatever a
 * benchmark measures on top of it is the runtime's own cost, not the model's.
 *
 * @example
 * const model = createInstantLanguageModel()
 * const result = await model.doGenerate({ prompt: [] })
 * result.content // [{ type: 'text', text: 'ok' }]
 */
export function createInstantLanguageModel(modelId = 'ok'): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'instant',
    modelId,
    supportedUrls: {},
    async doGenerate(): Promise<LanguageModelV3GenerateResult> {
      return {
        content: [{ type: 'text', text: INSTANT_ANSWER }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }
    },
    async doStream(): Promise<LanguageModelV3StreamResult> {
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'text-0' },
        { type: 'text-delta', id: 'text-0', delta: INSTANT_ANSWER },
        { type: 'text-end', id: 'text-0' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ]
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  }
}
