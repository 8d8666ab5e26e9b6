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
import { type ChatSpan, startChatSpan } from '../telemetry/chat-span'
import { type StreamedChatOutcome, streamedChatOutcome } from '../telemetry/streamed-chat-outcome'
import { outputRoom } from './output-room'
import { toolDefinitionsLength } from './tool-definitions-length'
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
export function budgetMiddleware(options: BudgetMiddlewareOptions): LanguageModelV3Middleware {
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

  type Held = { reservation: Reservation; inputEstimate: number; maxOutputTokens: number }

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

type Held = { reservation: Reservation; inputEstimate: number; maxOutputTokens: number }

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

/**
 * Passes the parts of a streamed call through and settles its reservation in every way the
 * stream can end: its finish part settles the reported usage; an error, a cancel or an abort of
 * one of `signals` before it settles what the call used so far (its input, and the output it
 * sent at one token per four characters) or releases the reservation if nothing came back, so
 * no reservation is ever left holding a budget. An abort settles at once and errors the stream
 * with the abort's reason, whether or not the provider ever reacts to the signal.
 */
function settledStream(options: {
  source: ReadableStream<LanguageModelV3StreamPart>
  held: Held
  settle: (held: Held, usage: LanguageModelV3Usage) => void
  signals: AbortSignal[]
  /** Called when the reservation is released with nothing to settle (no answer came back). */
  onRelease?: () => void
  /** Sees each part before it is passed on. */
  observe?: (part: LanguageModelV3StreamPart) => void
}): ReadableStream<LanguageModelV3StreamPart> {
  const { source, held, settle, signals, onRelease, observe } = options
  const reader = source.getReader()
  let outputCharacters = 0
  let answered = false
  let settled = false
  let controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined
  let ended = false
  const onAbort = (event: Event) => {
    const reason = (event.target as AbortSignal).reason
    settleSoFar()
    if (!ended) {
      ended = true
      controller?.error(reason)
    }
    reader.cancel(reason).catch(() => {})
  }
  const unlisten = () => {
    for (const signal of signals) signal.removeEventListener('abort', onAbort)
  }
  const settleOnce = (usage: LanguageModelV3Usage) => {
    if (settled) return
    settled = true
    unlisten()
    settle(held, usage)
  }
  const settleSoFar = () => {
    if (settled) return
    if (!answered) {
      settled = true
      unlisten()
      onRelease?.()
      return held.reservation.release()
    }
    const outputTokens = Math.max(1, Math.ceil(outputCharacters / 4))
    settleOnce({
      inputTokens: {
        total: held.inputEstimate,
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: outputTokens, text: undefined, reasoning: undefined },
    })
  }
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(own) {
      controller = own
      const aborted = signals.find((signal) => signal.aborted)
      if (aborted) return onAbort({ target: aborted } as unknown as Event)
      for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true })
    },
    async pull(sink) {
      let next: ReadableStreamReadResult<LanguageModelV3StreamPart>
      try {
        next = await reader.read()
      } catch (error) {
        settleSoFar()
        if (ended) return
        ended = true
        return sink.error(error)
      }
      if (ended) return
      if (next.done) {
        // A stream that ends without a finish part settles what it sent, like an error.
        settleSoFar()
        ended = true
        return sink.close()
      }
      const part = next.value
      observe?.(part)
      if (part.type === 'finish') settleOnce(part.usage)
      else if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
        answered = true
        outputCharacters += part.delta.length
      } else if (part.type === 'tool-input-delta') {
        answered = true
        outputCharacters += part.delta.length
      } else if (part.type === 'tool-call') answered = true
      sink.enqueue(part)
    },
    async cancel(reason) {
      ended = true
      settleSoFar()
      await reader.cancel(reason)
    },
  })
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
  const tools = params.tools?.length ? toolDefinitionsLength(params.tools) : 0
  return Math.ceil((characters + tools) / 3) + 16
}
