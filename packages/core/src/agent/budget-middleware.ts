import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import type { Budget, Reservation } from '../budget/create-budget'
import { readPrompt } from '../models/offline/read-prompt'
import { priceUsage } from '../models/price-table'
import type { PriceTable } from '../models/types'

/** What one model call cost, as charged. */
export type CallCharge = {
  inputTokens: number
  outputTokens: number
  tokens: number
  costUsd: number
}

export type BudgetMiddlewareOptions = {
  budget: Budget
  /** The `provider:model-id` the call is priced as. */
  model: string
  prices: Readonly<PriceTable>
  /** The wallet each charge is attributed to. */
  wallet?: string
  /** Called with the charge of every call that returned. */
  onCharge?: (charge: CallCharge) => void
}

// Without a caller-set limit, a call is assumed to answer in about this many tokens.
const OUTPUT_ESTIMATE = 1024

/**
 * Language model middleware that makes every call pay its way: it reserves one call and an
 * estimate of tokens and cost on the budget before the call (a refused reservation means no
 * call), caps `maxOutputTokens` by the tokens left, and settles the real usage afterwards.
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: budgetMiddleware({ budget, model: 'offline:default', prices: defaultPriceTable }) })
 */
export function budgetMiddleware(options: BudgetMiddlewareOptions): LanguageModelV3Middleware {
  const { budget, model, prices, wallet, onCharge } = options

  const reserve = (params: LanguageModelV3CallOptions) => {
    params.abortSignal?.throwIfAborted()
    budget.throwIfAborted()
    const inputEstimate = Math.ceil(readPrompt(params.prompt).characters / 4)
    const left = budget.remaining()
    let maxOutputTokens = params.maxOutputTokens
    let tokens = inputEstimate + (maxOutputTokens ?? OUTPUT_ESTIMATE)
    if (Number.isFinite(left.tokens)) {
      const room = Math.floor(left.tokens - inputEstimate)
      // No room for an answer: reserve the full estimate so the budget refuses it properly.
      if (room >= 1) {
        maxOutputTokens = Math.min(maxOutputTokens ?? room, room)
        tokens = Math.min(inputEstimate + maxOutputTokens, left.tokens)
      }
    }
    let costUsd = priceUsage(
      model,
      { inputTokens: inputEstimate, outputTokens: maxOutputTokens ?? OUTPUT_ESTIMATE },
      prices,
    )
    if (Number.isFinite(left.costUsd) && left.costUsd > 0) costUsd = Math.min(costUsd, left.costUsd)
    const reservation = budget.reserve({ calls: 1, tokens, costUsd })
    const call: LanguageModelV3CallOptions =
      maxOutputTokens === undefined ? params : { ...params, maxOutputTokens }
    return { reservation, call, inputEstimate }
  }

  const settle = (reservation: Reservation, usage: LanguageModelV3Usage, inputEstimate: number) => {
    const inputTokens = usage.inputTokens.total ?? inputEstimate
    const outputTokens = usage.outputTokens.total ?? 0
    const costUsd = priceUsage(model, { inputTokens, outputTokens }, prices)
    const tokens = inputTokens + outputTokens
    reservation.settle({ calls: 1, tokens, costUsd }, wallet ? { wallet } : {})
    onCharge?.({ inputTokens, outputTokens, tokens, costUsd })
  }

  return {
    specificationVersion: 'v3',
    async wrapGenerate({ params, model: inner }) {
      const { reservation, call, inputEstimate } = reserve(params)
      try {
        const result = await inner.doGenerate(call)
        settle(reservation, result.usage, inputEstimate)
        return result
      } catch (error) {
        reservation.release()
        throw error
      }
    },
    async wrapStream({ params, model: inner }) {
      const { reservation, call, inputEstimate } = reserve(params)
      let result: Awaited<ReturnType<typeof inner.doStream>>
      try {
        result = await inner.doStream(call)
      } catch (error) {
        reservation.release()
        throw error
      }
      const watch = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') settle(reservation, part.usage, inputEstimate)
          controller.enqueue(part)
        },
        // A stream that ends without a finish part (error, abort) charges nothing.
        flush: () => reservation.release(),
      })
      return { ...result, stream: result.stream.pipeThrough(watch) }
    },
  }
}
