/**
 * Remembers the most recent `capacity` ids, forgetting the oldest first: enough to drop the
 * duplicates an at-least-once rail produces, without growing for ever.
 */
export class BoundedIdSet {
  readonly #capacity: number
  readonly #ids = new Set<string>()

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  has(id: string): boolean {
    return this.#ids.has(id)
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false
    this.#ids.add(id)
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.values().next().value
      if (oldest !== undefined) this.#ids.delete(oldest)
    }
    return true
  }

  get size(): number {
    return this.#ids.size
  }
}
