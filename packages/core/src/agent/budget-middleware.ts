import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import type { Budget, Reservation } from '../budget/create-budget'
import { readPrompt } from '../models/offline/read-prompt'
import { findPrice, priceUsage } from '../models/price-table'
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

// Without a caller-set limit a call may answer in at most this many tokens. Reserving "all
// the money left" instead would starve every concurrent sibling on the same parent budget.
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096

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
    const inputEstimate = estimateInputTokens(params, model)
    const left = budget.remaining()
    const price = findPrice(model, prices)
    // How many output tokens the tokens and the money left can pay for.
    let room = Infinity
    if (Number.isFinite(left.tokens)) room = Math.floor(left.tokens - inputEstimate)
    if (Number.isFinite(left.costUsd) && price.outputPerMTok > 0) {
      const inputCost = (inputEstimate * price.inputPerMTok) / 1_000_000
      const byCost = Math.floor(((left.costUsd - inputCost) * 1_000_000) / price.outputPerMTok)
      room = Math.min(room, byCost)
    }
    const fits = room >= 1
    const wanted = params.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS
    const maxOutputTokens = fits ? Math.min(wanted, room) : wanted
    const outputBound = maxOutputTokens
    const estimate = {
      tokens: inputEstimate + outputBound,
      costUsd: priceUsage(model, { inputTokens: inputEstimate, outputTokens: outputBound }, prices),
    }
    // Without room for an answer the full estimate is reserved, so the budget refuses it
    // with a BudgetExceededError that names the dimension; otherwise it is capped by what is left.
    const reservation = budget.reserve({
      calls: 1,
      tokens: fits ? Math.min(estimate.tokens, left.tokens) : estimate.tokens,
      costUsd: fits ? Math.min(estimate.costUsd, left.costUsd) : estimate.costUsd,
    })
    const call: LanguageModelV3CallOptions = { ...params, maxOutputTokens }
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

/**
 * Input tokens a call will be billed for, estimated before it is made. The offline model
 * counts exactly one token per four characters; real tokenizers may count more, and tool
 * definitions are sent too, so the estimate for them is generous.
 *
 * @example
 * estimateInputTokens({ prompt: [{ role: 'system', content: 'abcd' }] }, 'offline:default') // 1
 */
export function estimateInputTokens(
  params: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>,
  model: string,
): number {
  const characters = readPrompt(params.prompt).characters
  if (model.startsWith('offline:')) return Math.ceil(characters / 4)
  const tools = params.tools?.length ? JSON.stringify(params.tools).length : 0
  return Math.ceil((characters + tools) / 3) + 16
}
