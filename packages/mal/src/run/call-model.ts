import {
  BatonError,
  type Budget,
  budgetMiddleware,
  defaultPriceTable,
  type ModelRegistry,
  type PriceTable,
} from '@baton/core'
import { ModelCallError } from './run-errors'

export type CallModelOptions = {
  models: ModelRegistry
  /** `provider:model-id`. */
  model: string
  prompt: string
  system?: string
  temperature?: number
  budget: Budget
  signal?: AbortSignal
  /** Who the spend is attributed to. */
  wallet: string
  prices?: Readonly<PriceTable>
}

export type CallModelResult = { text: string; inputTokens: number; outputTokens: number }

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
type CallParams = Parameters<LanguageModel['doGenerate']>[0]

/**
 * Calls a model once, directly (no agent, no tools), through core's budget middleware: the
 * same charging path as every agent's calls. The answer is bounded (`maxOutputTokens`, at
 * most what the budget has left), that bound is reserved before the call and the real usage
 * settled after; a call that does not fit while sibling calls hold reservations waits for
 * them to settle, so concurrent fanout branches share a budget instead of starving.
 *
 * @example
 * const { text } = await callModel({ models, model: 'offline:default', prompt: 'Hi', budget, wallet: 'coordinator' })
 */
export async function callModel(options: CallModelOptions): Promise<CallModelResult> {
  const { budget, model: ref } = options
  const signal = options.signal ? AbortSignal.any([budget.signal, options.signal]) : budget.signal
  budget.throwIfAborted()
  signal.throwIfAborted()
  let charged: { inputTokens: number; outputTokens: number } | undefined
  const middleware = budgetMiddleware({
    budget,
    model: ref,
    prices: options.prices ?? options.models.prices ?? defaultPriceTable,
    wallet: options.wallet,
    onCharge: (charge) => {
      charged = charge
    },
  })
  const params: CallParams = {
    prompt: [
      ...(options.system ? [{ role: 'system' as const, content: options.system }] : []),
      { role: 'user', content: [{ type: 'text', text: options.prompt }] },
    ],
    abortSignal: signal,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  }
  try {
    const languageModel = options.models.languageModel(ref)
    const result = await middleware.wrapGenerate!({
      doGenerate: () => languageModel.doGenerate(params),
      doStream: () => languageModel.doStream(params),
      params,
      model: languageModel,
    })
    const text = result.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
    return {
      text,
      inputTokens: charged?.inputTokens ?? 0,
      outputTokens: charged?.outputTokens ?? 0,
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason
    if (BatonError.isInstance(error)) throw error
    throw new ModelCallError({
      model: ref,
      reason: error instanceof Error ? error.message : String(error),
      cause: error,
    })
  }
}
