import type { SerialWriter } from './serial-writer'

export type EventBatcherOptions = {
  writer: SerialWriter
  /** Stores a batch of events, in order. */
  append: (events: Record<string, unknown>[]) => Promise<void>
  /** Events in one write at most (default 500). */
  maxBatch?: number
  /** Events given and not yet stored past which `room()` holds the run (default 1000). */
  maxPending?: number
}

/**
 * Stores a run's events through its serial writer, in batches: events given while a batch
 * waits for its turn join it (unless something else was written after it was queued, so the
 * order of events and ledger rows is kept). At most `maxPending` events are kept in memory
 * unstored: past it `room()` gives the promise the run's next step waits for, so a run that
 * emits faster than the database stores is slowed to its pace instead of filling the heap.
 *
 * @example
 * const events = createEventBatcher({ writer, append: (batch) => runs.appendEvents(id, batch) })
 * events.push(event); await events.room()
 */
export function createEventBatcher(options: EventBatcherOptions) {
  const maxBatch = options.maxBatch ?? 500
  const maxPending = options.maxPending ?? 1000
  const { writer } = options
  let open: { events: Record<string, unknown>[]; queuedAs: number; started: boolean } | undefined
  let pending = 0
  let waiting: { promise: Promise<void>; resolve: () => void } | undefined
  const wake = () => {
    if (pending >= maxPending || !waiting) return
    const { resolve } = waiting
    waiting = undefined
    resolve()
  }
  return {
    push(event: Record<string, unknown>): void {
      pending += 1
      if (
        open &&
        !open.started &&
        open.queuedAs === writer.queued() &&
        open.events.length < maxBatch
      ) {
        open.events.push(event)
        return
      }
      const batch = { events: [event], queuedAs: 0, started: false }
      open = batch
      writer.write(async () => {
        batch.started = true
        try {
          await options.append(batch.events)
        } finally {
          // Stored or failed (the writer keeps the failure for its next flush): no longer held.
          pending -= batch.events.length
          wake()
        }
      })
      batch.queuedAs = writer.queued()
    },
    /** Resolves once fewer than `maxPending` events wait to be stored (at once: `undefined`). */
    room(): Promise<void> | undefined {
      if (pending < maxPending) return undefined
      if (!waiting) {
        let resolve!: () => void
        const promise = new Promise<void>((done) => {
          resolve = done
        })
        waiting = { promise, resolve }
      }
      return waiting.promise
    },
  }
}

export type EventBatcher = ReturnType<typeof createEventBatcher>
