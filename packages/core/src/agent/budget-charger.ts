import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import type { Budget } from '../budget/create-budget'
import { findPrice, priceUsage } from '../models/price-table'
import type { ModelPrice, PriceTable } from '../models/types'
import { type ChatSpan, IDLE_CHAT_SPAN, startChatSpan } from '../telemetry/chat-span'
import { type StreamedChatOutcome, streamedChatOutcome } from '../telemetry/streamed-chat-outcome'
import { estimateInputTokens } from './estimate-input-tokens'
import { outputRoom } from './output-room'
import { type Held, settledStream } from './settled-stream'
import { untilAborted } from './until-aborted'

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
  /**
   * A call with no abort signal of its own is given the budget's, so aborting the budget
   * aborts the call. The signal is made only if the model reads it (a budget makes its signal
   * when first asked): many calls on budgets nobody listens to make none.
   */
  signalFromBudget?: boolean
}

// Without a caller-set limit a call may answer in at most this many tokens. Reserving "all
// the money left" instead would starve every concurrent sibling on the same parent budget.
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096

const NO_WALLET = Object.freeze({})

// The budget a call's signal comes from, kept on the call: one getter serves every call (an
// accessor made per call, in a literal or a descriptor, cost 0.6-1.8 µs; this costs 0.1).
const CALL_BUDGET = Symbol('baton.callBudget')
type BudgetCall = LanguageModelV3CallOptions & { [CALL_BUDGET]?: Budget }
const budgetSignal: PropertyDescriptor = {
  get(this: BudgetCall) {
    return this[CALL_BUDGET]?.signal
  },
  enumerable: true,
  configurable: true,
}

type Generated = Awaited<ReturnType<LanguageModelV3['doGenerate']>>
type Streamed = Awaited<ReturnType<LanguageModelV3['doStream']>>

/** A reservation held for one call, and the call's options with its output cap. */
type Reserved = Held & { call: LanguageModelV3CallOptions }

/**
 * The budget middleware's work (see `budgetMiddleware`) as methods of one object per run, not
 * closures: an agent hop makes a run, and a run made a dozen closures for it.
 *
 * @example
 * const charger = new BudgetCharger({ budget, model: 'offline:default', prices })
 * const result = await charger.generate(params, model)
 */
export class BudgetCharger {
  readonly #options: BudgetMiddlewareOptions

  constructor(options: BudgetMiddlewareOptions) {
    this.#options = options
  }

  generate(params: LanguageModelV3CallOptions, inner: LanguageModelV3): Promise<Generated> {
    // Reserved at once when there is room (the usual case), without an async layer for it:
    // only a call that must wait for a sibling's release goes through `#reserve`'s loop.
    let reserved: Reserved | undefined
    try {
      reserved = this.#reserveNow(params)
    } catch (error) {
      return Promise.reject(error)
    }
    if (reserved) return this.#generate(reserved, inner)
    return this.#reserve(params).then((held) => this.#generate(held, inner))
  }

  async #generate(held: Reserved, inner: LanguageModelV3): Promise<Generated> {
    const { model, wallet } = this.#options
    const call = held.call
    const chat = startChatSpan({ model, call, wallet })
    try {
      const result = await inner.doGenerate(call)
      const charge = this.#settle(held, result.usage)
      // No SDK and no listener: no outcome to build.
      if (chat !== IDLE_CHAT_SPAN) {
        chat.finish({
          ...charge,
          finishReason: result.finishReason,
          responseModel: result.response?.modelId,
          responseId: result.response?.id,
          content: result.content,
        })
      }
      return result
    } catch (error) {
      held.reservation.release()
      chat.fail(error)
      throw error
    }
  }

  async stream(params: LanguageModelV3CallOptions, inner: LanguageModelV3): Promise<Streamed> {
    const held = await this.#reserve(params)
    const call = held.call
    const { model, wallet, budget } = this.#options
    const chat = startChatSpan({ model, call, wallet })
    let result: Streamed
    try {
      result = await inner.doStream(call)
    } catch (error) {
      held.reservation.release()
      chat.fail(error)
      throw error
    }
    // The call's signal and the budget's: a provider that ignores an abort never closes its
    // stream, so the reservation is released on the signal itself, not on the stream's end.
    // (The same one when the call was given the budget's.)
    const signals = [call.abortSignal, budget.signal].filter(
      (signal, index, all): signal is AbortSignal =>
        signal !== undefined && all.indexOf(signal) === index,
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
        settle: settledChat((settling, usage) => this.#settle(settling, usage), chat, streamed),
        signals,
        ...(streamed ? { observe: streamed.observe } : {}),
        onRelease: () => chat.finish({ inputTokens: 0, outputTokens: 0, costUsd: 0 }),
      }),
    }
  }

  /** A reservation made now if the budget has room for the call, else undefined. */
  #reserveNow(params: LanguageModelV3CallOptions): Reserved | undefined {
    const { budget, model, prices } = this.#options
    const inputEstimate = estimateInputTokens(params, model)
    params.abortSignal?.throwIfAborted()
    budget.throwIfAborted()
    return this.#reserveIn(params, inputEstimate, findPrice(model, prices))
  }

  #reserveIn(
    params: LanguageModelV3CallOptions,
    inputEstimate: number,
    price: ModelPrice,
  ): Reserved | undefined {
    const { budget } = this.#options
    const left = budget.remaining()
    const room = outputRoom({ left, price, inputEstimate })
    if (room < 1) return undefined
    const maxOutputTokens = Math.min(params.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, room)
    const estimate = this.#reservedEstimate(inputEstimate, maxOutputTokens)
    // Capped by what is left only to absorb rounding: the room already fits both.
    const reservation = budget.reserve({
      calls: 1,
      tokens: Math.min(estimate.tokens, left.tokens),
      costUsd: Math.min(estimate.costUsd, left.costUsd),
    })
    const call = this.#call(params, maxOutputTokens)
    return { reservation, call, inputEstimate, maxOutputTokens }
  }

  async #reserve(params: LanguageModelV3CallOptions): Promise<Reserved> {
    const { budget, model, prices } = this.#options
    const inputEstimate = estimateInputTokens(params, model)
    const price = findPrice(model, prices)
    const wanted = params.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS
    for (;;) {
      params.abortSignal?.throwIfAborted()
      budget.throwIfAborted()
      const reserved = this.#reserveIn(params, inputEstimate, price)
      if (reserved) return reserved
      // Calls in flight hold reservations sized for their longest answer; most settle for
      // less. Waiting for them keeps concurrent siblings from failing on money not yet spent.
      const released = budget.nextRelease()
      if (!released) break
      await untilAborted(released, [params.abortSignal, budget.signal])
    }
    // Nothing in flight can give money back: reserving the full estimate is refused with a
    // BudgetExceededError that names the budget and the dimension.
    const estimate = this.#reservedEstimate(inputEstimate, wanted)
    const reservation = budget.reserve({ calls: 1, ...estimate })
    const call = this.#call(params, wanted)
    return { reservation, call, inputEstimate, maxOutputTokens: wanted }
  }

  /** The call as the model gets it: with the budget's signal, read when the model reads it. */
  #call(params: LanguageModelV3CallOptions, maxOutputTokens: number): LanguageModelV3CallOptions {
    const { budget, signalFromBudget } = this.#options
    // Not a spread: calls come in many shapes, and a spread of many shapes was 10% of a
    // delegation hop where Object.assign's copy does not show.
    const call: BudgetCall = Object.assign({}, params)
    call.maxOutputTokens = maxOutputTokens
    if (signalFromBudget && params.abortSignal === undefined) {
      call[CALL_BUDGET] = budget
      Object.defineProperty(call, 'abortSignal', budgetSignal)
    }
    return call
  }

  #reservedEstimate(inputEstimate: number, outputTokens: number) {
    const { model, prices } = this.#options
    return {
      tokens: inputEstimate + outputTokens,
      costUsd: priceUsage(model, { inputTokens: inputEstimate, outputTokens }, prices),
    }
  }

  #settle(held: Held, usage: LanguageModelV3Usage): CallCharge {
    const { model, prices, wallet, onCharge } = this.#options
    // A provider that does not report usage is charged its worst case, never nothing.
    const inputTokens = usage.inputTokens.total ?? held.inputEstimate
    const outputTokens = usage.outputTokens.total ?? held.maxOutputTokens
    const costUsd = priceUsage(model, { inputTokens, outputTokens }, prices)
    const tokens = inputTokens + outputTokens
    held.reservation.settle({ calls: 1, tokens, costUsd }, wallet ? { wallet } : NO_WALLET)
    const charge = { inputTokens, outputTokens, tokens, costUsd }
    onCharge?.(charge)
    return charge
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
