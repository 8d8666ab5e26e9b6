import {
  BatonError,
  type Budget,
  defaultPriceTable,
  findPrice,
  type ModelRegistry,
  type PriceTable,
  priceUsage,
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

// A call is assumed to answer in about this many tokens when the budget sets no bound.
const OUTPUT_ESTIMATE = 1024

/**
 * Calls a model once, directly (no agent, no tools). The call pays its way strictly: its
 * answer is capped (`maxOutputTokens`) by what the budget has left in tokens and dollars, and
 * the full worst case is reserved before the call, so a budget is never overspent by a
 * provider that honours the cap.
 *
 * @example
 * const { text } = await callModel({ models, model: 'offline:default', prompt: 'Hi', budget, wallet: 'coordinator' })
 */
export async function callModel(options: CallModelOptions): Promise<CallModelResult> {
  const { budget, model: ref } = options
  const signal = options.signal ? AbortSignal.any([budget.signal, options.signal]) : budget.signal
  budget.throwIfAborted()
  signal.throwIfAborted()
  const prices = options.prices ?? options.models.prices ?? defaultPriceTable
  const price = findPrice(ref, prices)
  const characters = (options.system?.length ?? 0) + options.prompt.length
  // Generous on purpose: real tokenizers may count more than one token per four characters.
  const inputEstimate = Math.ceil(characters / 3) + 16
  const left = budget.remaining()
  let maxOutputTokens: number | undefined
  if (Number.isFinite(left.tokens)) maxOutputTokens = Math.floor(left.tokens - inputEstimate)
  if (Number.isFinite(left.costUsd) && price.outputPerMTok > 0) {
    const inputCost = (inputEstimate * price.inputPerMTok) / 1_000_000
    const byCost = Math.floor(((left.costUsd - inputCost) * 1_000_000) / price.outputPerMTok)
    maxOutputTokens = Math.min(maxOutputTokens ?? byCost, byCost)
  }
  const outputBound = maxOutputTokens === undefined ? OUTPUT_ESTIMATE : Math.max(1, maxOutputTokens)
  // With no room for even one output token this reservation is refused with BUDGET_EXCEEDED.
  const reservation = budget.reserve({
    calls: 1,
    tokens: inputEstimate + outputBound,
    costUsd: priceUsage(ref, { inputTokens: inputEstimate, outputTokens: outputBound }, prices),
  })
  try {
    const languageModel = options.models.languageModel(ref)
    const result = await languageModel.doGenerate({
      prompt: [
        ...(options.system ? [{ role: 'system' as const, content: options.system }] : []),
        { role: 'user', content: [{ type: 'text', text: options.prompt }] },
      ],
      abortSignal: signal,
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens: outputBound }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    })
    const text = result.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
    const inputTokens = result.usage.inputTokens.total ?? inputEstimate
    const outputTokens = result.usage.outputTokens.total ?? Math.ceil(text.length / 4)
    reservation.settle(
      {
        calls: 1,
        tokens: inputTokens + outputTokens,
        costUsd: priceUsage(ref, { inputTokens, outputTokens }, prices),
      },
      { wallet: options.wallet },
    )
    return { text, inputTokens, outputTokens }
  } catch (error) {
    reservation.release()
    if (signal.aborted) throw signal.reason
    if (BatonError.isInstance(error)) throw error
    throw new ModelCallError({
      model: ref,
      reason: error instanceof Error ? error.message : String(error),
      cause: error,
    })
  }
}
