import { OldestFirst } from '@baton/core'

/**
 * Remembers the most recent `capacity` ids, forgetting the oldest first: enough to drop the
 * duplicates an at-least-once rail produces, without growing for ever. Adding is O(1) however
 * long the rail runs (see `OldestFirst`).
 */
export class BoundedIdSet {
  readonly #capacity: number
  readonly #ids = new Set<string>()
  readonly #oldest = new OldestFirst(this.#ids)

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  has(id: string): boolean {
    return this.#ids.has(id)
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    const known = this.#ids.size
    this.#ids.add(id)
    if (this.#ids.size === known) return false
    this.#oldest.trimTo(this.#capacity)
    return true
  }

  get size(): number {
    return this.#ids.size
  }
}
