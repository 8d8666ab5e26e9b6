import type { RunEvent } from './run-event'

// A result keeps this many events by default: enough for any plan a person reads, bounded for
// a loop of ten thousand iterations.
const DEFAULT_MAX_EVENTS = 1000

/**
 * The events a result keeps: the `run-start` and the most recent ones, at most `max` in all
 * (the full stream goes to `onEvent` and `run.events`). Older events are counted, not kept.
 *
 * @example
 * const log = new EventLog(100); log.push(event); log.events() // in order
 */
export class EventLog {
  readonly #max: number
  #first: RunEvent | undefined
  readonly #ring: RunEvent[] = []
  #next = 0
  #dropped = 0

  constructor(max = DEFAULT_MAX_EVENTS) {
    this.#max = Math.max(2, max)
  }

  get dropped(): number {
    return this.#dropped
  }

  push(event: RunEvent): void {
    if (!this.#first) {
      this.#first = event
      return
    }
    const room = this.#max - 1
    if (this.#ring.length < room) {
      this.#ring.push(event)
      return
    }
    this.#ring[this.#next] = event
    this.#next = (this.#next + 1) % room
    this.#dropped += 1
  }

  events(): RunEvent[] {
    const ordered = [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)]
    return this.#first ? [this.#first, ...ordered] : ordered
  }
}
