import { setTimeout as sleep } from 'node:timers/promises'
import {
  createModelRegistry,
  createOfflineModel,
  defaultPriceTable,
  estimateInputTokens,
  findPrice,
  type ModelRegistry,
} from '@baton/core'

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
export type CallOptions = Parameters<LanguageModel['doGenerate']>[0]
type CallResult = Awaited<ReturnType<LanguageModel['doGenerate']>>
type StreamPart =
  Awaited<ReturnType<LanguageModel['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never

export type ObservedProvider = {
  /** Answers only after this long. */
  delayMs?: number
  /** Answers even when the call is aborted, like a provider whose answer was on its way. */
  ignoreAbort?: boolean
}

export type OfflineModelsOptions = {
  /** Provider names, each the offline model at the offline price (default: just `offline`). */
  providers?: Record<string, ObservedProvider>
  /** Every call, as the model receives it. */
  onCall?: (call: { provider: string; modelId: string; options: CallOptions }) => void
  /** Every call the model answered, with the answer (so its usage). */
  onAnswer?: (answer: { provider: string; modelId: string; result: CallResult }) => void
}

/**
 * A model registry of offline models that lets a test see what the models really received
 * and answered, whatever the budgets under test recorded.
 */
export function offlineModels(options: OfflineModelsOptions = {}): ModelRegistry {
  const providers = options.providers ?? { offline: {} }
  const observed = (provider: string, behaviour: ObservedProvider) => {
    return (modelId: string): LanguageModel => {
      const inner = createOfflineModel(modelId)
      return {
        ...inner,
        async doGenerate(call) {
          options.onCall?.({ provider, modelId, options: call })
          if (behaviour.delayMs) await sleep(behaviour.delayMs)
          const { abortSignal, ...rest } = call
          const result = await inner.doGenerate(behaviour.ignoreAbort ? rest : call)
          options.onAnswer?.({ provider, modelId, result })
          return result
        },
        // Streamed calls (mal streams a step's text) are observed the same way: the answer is
        // reported when the stream's finish part goes by, with its usage; a stream cut off
        // after it sent output reports what a provider bills for it (its input, and the
        // output it sent at one token per four characters).
        async doStream(call) {
          options.onCall?.({ provider, modelId, options: call })
          if (behaviour.delayMs) await sleep(behaviour.delayMs)
          const { abortSignal, ...rest } = call
          const result = await inner.doStream(behaviour.ignoreAbort ? rest : call)
          const onAnswer = options.onAnswer
          if (!onAnswer) return result
          const reader = result.stream.getReader()
          let characters = 0
          let reported = false
          const report = (usage: CallResult['usage'], finishReason: CallResult['finishReason']) => {
            if (reported) return
            reported = true
            onAnswer({
              provider,
              modelId,
              result: { content: [], finishReason, usage, warnings: [] },
            })
          }
          const cutOff = () => {
            if (characters === 0) return
            report(
              {
                inputTokens: {
                  total: estimateInputTokens(call, 'offline:default'),
                  noCache: undefined,
                  cacheRead: undefined,
                  cacheWrite: undefined,
                },
                outputTokens: {
                  total: Math.max(1, Math.ceil(characters / 4)),
                  text: undefined,
                  reasoning: undefined,
                },
              },
              { unified: 'other', raw: undefined },
            )
          }
          const stream = new ReadableStream<StreamPart>({
            async pull(controller) {
              let next: ReadableStreamReadResult<StreamPart>
              try {
                next = await reader.read()
              } catch (error) {
                cutOff()
                return controller.error(error)
              }
              if (next.done) {
                cutOff()
                return controller.close()
              }
              const part = next.value
              if (part.type === 'finish') report(part.usage, part.finishReason)
              if ('delta' in part) characters += part.delta.length
              controller.enqueue(part)
            },
            async cancel(reason) {
              cutOff()
              await reader.cancel(reason)
            },
          })
          return { ...result, stream }
        },
      }
    }
  }
  const offlinePrice = findPrice('offline:default', defaultPriceTable)
  return createModelRegistry({
    providers: Object.fromEntries(
      Object.entries(providers).map(([name, behaviour]) => [name, observed(name, behaviour)]),
    ),
    prices: Object.fromEntries(Object.keys(providers).map((name) => [`${name}:*`, offlinePrice])),
  })
}
