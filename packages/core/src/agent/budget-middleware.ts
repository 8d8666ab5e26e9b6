import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import type { Budget } from '../budget/create-budget'
import { findPrice, priceUsage } from '../models/price-table'
import type { PriceTable } from '../models/types'
import { type ChatSpan, startChatSpan } from '../telemetry/chat-span'
import { type StreamedChatOutcome, streamedChatOutcome } from '../telemetry/streamed-chat-outcome'
import { estimateInputTokens } from './estimate-input-tokens'
import { outputRoom } from './output-room'
import { type Held, settledStream } from './settled-stream'
import { untilAborted } from './until-aborted'

export { estimateInputTokens } from './estimate-input-tokens'

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
 * call), caps `maxOutputTokens` by the tokens and money left, and settles the real usage
 * afterwards (a provider that reports no usage is charged the whole allowance). So a run can
 * go past a tokens or cost limit only by what its input estimate missed. A call that does not
 * fit while other calls on the budget tree hold reservations waits for them to settle (or for
 * an abort) instead of failing on money they have not spent.
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: budgetMiddleware({ budget, model: 'offline:default', prices: defaultPriceTable }) })
 */
export function budgetMiddleware(
  options: BudgetMiddlewareOptions,
): LanguageModelV3Middleware &
  Required<Pick<LanguageModelV3Middleware, 'wrapGenerate' | 'wrapStream'>> {
  const { budget, model, prices, wallet, onCharge } = options

  const reserve = async (params: LanguageModelV3CallOptions) => {
    const inputEstimate = estimateInputTokens(params, model)
    const price = findPrice(model, prices)
    const wanted = params.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS
    for (;;) {
      params.abortSignal?.throwIfAborted()
      budget.throwIfAborted()
      const room = outputRoom({ left: budget.remaining(), price, inputEstimate })
      if (room >= 1) {
        const maxOutputTokens = Math.min(wanted, room)
        const estimate = reservedEstimate({ inputEstimate, outputTokens: maxOutputTokens })
        const left = budget.remaining()
        // Capped by what is left only to absorb rounding: the room already fits both.
        const reservation = budget.reserve({
          calls: 1,
          tokens: Math.min(estimate.tokens, left.tokens),
          costUsd: Math.min(estimate.costUsd, left.costUsd),
        })
        const call: LanguageModelV3CallOptions = { ...params, maxOutputTokens }
        return { reservation, call, inputEstimate, maxOutputTokens }
      }
      // Calls in flight hold reservations sized for their longest answer; most settle for
      // less. Waiting for them keeps concurrent siblings from failing on money not yet spent.
      const released = budget.nextRelease()
      if (!released) break
      await untilAborted(released, [params.abortSignal, budget.signal])
    }
    // Nothing in flight can give money back: reserving the full estimate is refused with a
    // BudgetExceededError that names the budget and the dimension.
    const estimate = reservedEstimate({ inputEstimate, outputTokens: wanted })
    const reservation = budget.reserve({ calls: 1, ...estimate })
    const call: LanguageModelV3CallOptions = { ...params, maxOutputTokens: wanted }
    return { reservation, call, inputEstimate, maxOutputTokens: wanted }
  }

  const reservedEstimate = (usage: { inputEstimate: number; outputTokens: number }) => ({
    tokens: usage.inputEstimate + usage.outputTokens,
    costUsd: priceUsage(
      model,
      { inputTokens: usage.inputEstimate, outputTokens: usage.outputTokens },
      prices,
    ),
  })

  const settle = (held: Held, usage: LanguageModelV3Usage) => {
    // A provider that does not report usage is charged its worst case, never nothing.
    const inputTokens = usage.inputTokens.total ?? held.inputEstimate
    const outputTokens = usage.outputTokens.total ?? held.maxOutputTokens
    const costUsd = priceUsage(model, { inputTokens, outputTokens }, prices)
    const tokens = inputTokens + outputTokens
    held.reservation.settle({ calls: 1, tokens, costUsd }, wallet ? { wallet } : {})
    const charge = { inputTokens, outputTokens, tokens, costUsd }
    onCharge?.(charge)
    return charge
  }

  return {
    specificationVersion: 'v3',
    async wrapGenerate({ params, model: inner }) {
      const { call, ...held } = await reserve(params)
      const chat = startChatSpan({ model, call, wallet })
      try {
        const result = await inner.doGenerate(call)
        const charge = settle(held, result.usage)
        chat.finish({
          ...charge,
          finishReason: result.finishReason,
          responseModel: result.response?.modelId,
          responseId: result.response?.id,
          content: result.content,
        })
        return result
      } catch (error) {
        held.reservation.release()
        chat.fail(error)
        throw error
      }
    },
    async wrapStream({ params, model: inner }) {
      const { call, ...held } = await reserve(params)
      const chat = startChatSpan({ model, call, wallet })
      let result: Awaited<ReturnType<typeof inner.doStream>>
      try {
        result = await inner.doStream(call)
      } catch (error) {
        held.reservation.release()
        chat.fail(error)
        throw error
      }
      // The call's signal and the budget's: a provider that ignores an abort never closes its
      // stream, so the reservation is released on the signal itself, not on the stream's end.
      const signals = [call.abortSignal, budget.signal].filter(
        (signal): signal is AbortSignal => signal !== undefined,
      )
      // Only a recording span is told what the stream said: no SDK, nothing gathered.
      const streamed = chat.records
        ? streamedChatOutcome({ capture: chat.capturesContent })
        : undefined
      return {
        ...result,
        stream: settledStream({
          source: result.stream,
          held,
          settle: settledChat(settle, chat, streamed),
          signals,
          ...(streamed ? { observe: streamed.observe } : {}),
          onRelease: () => chat.finish({ inputTokens: 0, outputTokens: 0, costUsd: 0 }),
        }),
      }
    },
  }
}

// A streamed call's span ends where its reservation settles, however the stream ends.
function settledChat(
  settle: (held: Held, usage: LanguageModelV3Usage) => CallCharge,
  chat: ChatSpan,
  streamed: StreamedChatOutcome | undefined,
): (held: Held, usage: LanguageModelV3Usage) => void {
  return (held, usage) => {
    const charge = settle(held, usage)
    chat.finish(streamed ? Object.assign(streamed.outcome(), charge) : charge)
  }
}
