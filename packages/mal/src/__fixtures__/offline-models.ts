import { setTimeout as sleep } from 'node:timers/promises'
import {
  createModelRegistry,
  createOfflineModel,
  defaultPriceTable,
  findPrice,
  type ModelRegistry,
} from '@baton/core'

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
export type CallOptions = Parameters<LanguageModel['doGenerate']>[0]
type CallResult = Awaited<ReturnType<LanguageModel['doGenerate']>>

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
        // Unobserved calls would make a test blind to them: refuse them loudly instead.
        doStream: () => Promise.reject(new Error('offlineModels observes doGenerate only')),
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
