import type { Envelope } from '../envelope/envelope'

/**
 * The messages of one conversation as the store shows them: appending is O(1) amortized (one
 * array grows underneath), and each version sees only the messages it had, as a frozen array
 * made the first time it is read and kept.
 *
 * @example
 * const first = MessageLog.empty().append(a)
 * const second = first.append(b)
 * first.messages // [a]
 * second.messages // [a, b]
 */
export class MessageLog {
  readonly #shared: Envelope[]
  readonly #length: number
  #messages: readonly Envelope[] | undefined

  private constructor(shared: Envelope[], length: number) {
    this.#shared = shared
    this.#length = length
  }

  static empty(): MessageLog {
    return new MessageLog([], 0)
  }

  static of(messages: readonly Envelope[]): MessageLog {
    return new MessageLog([...messages], messages.length)
  }

  get length(): number {
    return this.#length
  }

  get messages(): readonly Envelope[] {
    this.#messages ??= Object.freeze(this.#shared.slice(0, this.#length))
    return this.#messages
  }

  append(envelope: Envelope): MessageLog {
    // Only the newest version may grow the shared array; a branch off an older one copies.
    if (this.#shared.length === this.#length) {
      this.#shared.push(envelope)
      return new MessageLog(this.#shared, this.#length + 1)
    }
    const copy = this.#shared.slice(0, this.#length)
    copy.push(envelope)
    return new MessageLog(copy, copy.length)
  }
}
