import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider'
import type { Reservation } from '../budget/create-budget'

/** A call's reservation, with what it was sized for. */
export type Held = { reservation: Reservation; inputEstimate: number; maxOutputTokens: number }

/**
 * Passes the parts of a streamed call through and settles its reservation in every way the
 * stream can end: its finish part settles the reported usage; an error, a cancel or an abort of
 * one of `signals` before it settles what the call used so far (its input, and the output it
 * sent at one token per four characters) or releases the reservation if nothing came back, so
 * no reservation is ever left holding a budget. An abort settles at once and errors the stream
 * with the abort's reason, whether or not the provider ever reacts to the signal.
 *
 * @example
 * const stream = settledStream({ source: result.stream, held, settle, signals: [budget.signal] })
 */
export function settledStream(options: {
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
