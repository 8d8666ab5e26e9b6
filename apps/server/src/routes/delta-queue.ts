import type { RunDelta } from '../services/run-notifier'

// A reader far behind the stored events holds at most this many deltas; older ones are
// dropped (the step's whole text is in its stored step-finish).
const MAX_WAITING = 2_000

/**
 * The live deltas of one SSE reader, in order: each is sent once the stored event it follows
 * (its `sequence`) has been sent, so a reader never sees a step's text before its
 * `step-start`, whether it reads live or is catching up after `Last-Event-ID`.
 *
 * @example
 * const deltas = createDeltaQueue((delta) => sse.send({ event: 'step-delta', data: delta }))
 * deltas.add(delta); deltas.sendUpTo(lastSentSequence)
 */
export function createDeltaQueue(send: (delta: RunDelta) => void) {
  const waiting: RunDelta[] = []
  return {
    add(delta: RunDelta): void {
      waiting.push(delta)
      if (waiting.length > MAX_WAITING) waiting.shift()
    },
    /** Sends, in order, the waiting deltas that follow stored events up to `sequence`. */
    sendUpTo(sequence: number): void {
      while (waiting.length > 0 && waiting[0]!.sequence <= sequence) send(waiting.shift()!)
    },
  }
}
