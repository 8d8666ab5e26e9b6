import type { RunEvent } from './run-event'

/** A run's events as a web `ReadableStream` that is also async iterable (AI SDK style). */
export type RunEventStream = ReadableStream<RunEvent> & AsyncIterable<RunEvent>

// Room for this many events not yet read; past it the run waits at its next step.
const DEFAULT_CAPACITY = 256

/**
 * The bounded stream behind `run.events`. Nothing is buffered until someone asks for the
 * stream, so a run nobody streams keeps no events here; once asked for, a reader that falls
 * `capacity` events behind holds the run at its next step until it catches up (a cancelled
 * reader releases it for good).
 *
 * @example
 * const channel = new RunEventChannel()
 * const stream = channel.stream()
 * channel.push(event); await channel.room(); channel.close()
 */
export class RunEventChannel {
  readonly #capacity: number
  #stream: RunEventStream | undefined
  #controller: ReadableStreamDefaultController<RunEvent> | undefined
  #open = true
  // One promise for every step waiting for room (fanout branches wait together).
  #room: { promise: Promise<void>; resolve: () => void } | undefined

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity
  }

  stream(): RunEventStream {
    if (this.#stream) return this.#stream
    const live = this.#open
    this.#stream = new ReadableStream<RunEvent>(
      {
        start: (controller) => {
          if (live) this.#controller = controller
          else controller.close()
        },
        pull: () => this.#wake(),
        cancel: () => {
          this.#controller = undefined
          this.#wake()
        },
      },
      new CountQueuingStrategy({ highWaterMark: this.#capacity }),
    ) as RunEventStream
    return this.#stream
  }

  /** Someone asked for the stream and has not cancelled it: events pushed now are read. */
  get listening(): boolean {
    return this.#controller !== undefined
  }

  push(event: RunEvent): void {
    this.#controller?.enqueue(event)
  }

  /** Resolves once the reader has room for more events (at once when nobody reads). */
  room(): Promise<void> | undefined {
    const controller = this.#controller
    if (!controller || (controller.desiredSize ?? 1) > 0) return undefined
    if (!this.#room) {
      let resolve!: () => void
      const promise = new Promise<void>((done) => {
        resolve = done
      })
      this.#room = { promise, resolve }
    }
    return this.#room.promise
  }

  close(): void {
    this.#open = false
    this.#controller?.close()
    this.#controller = undefined
    this.#wake()
  }

  fail(error: unknown): void {
    this.#open = false
    this.#controller?.error(error)
    this.#controller = undefined
    this.#wake()
  }

  #wake(): void {
    const room = this.#room
    this.#room = undefined
    room?.resolve()
  }
}
