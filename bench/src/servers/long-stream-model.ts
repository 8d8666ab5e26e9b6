import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { createInstantLanguageModel } from '../instant'

/**
 * An instant model whose stream sends `chunks` deltas of 8 characters at once, after a pause
 * that lets the reader of the run's events connect first (the pause is not measured).
 *
 * @example
 * const model = longStreamModel(20_000) // 160 000 characters in 20 000 deltas
 */
export function longStreamModel(chunks: number): LanguageModelV3 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: chunks * 2, text: chunks * 2, reasoning: 0 },
  }
  return {
    ...createInstantLanguageModel({ modelId: 'stream' }),
    async doStream() {
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async start(controller) {
            await new Promise((resolve) => setTimeout(resolve, 300))
            controller.enqueue({ type: 'stream-start', warnings: [] })
            controller.enqueue({ type: 'text-start', id: 't' })
            for (let index = 0; index < chunks; index += 1) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: 'abcdefg ' })
            }
            controller.enqueue({ type: 'text-end', id: 't' })
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
            })
            controller.close()
          },
        }),
      }
    },
  }
}
