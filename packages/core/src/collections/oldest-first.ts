/** What `OldestFirst` needs of a `Map` or a `Set`: its keys in insertion order, and removal. */
export type InsertionOrdered<K> = {
  readonly size: number
  keys(): Iterator<K>
  delete(key: K): boolean
}

/**
 * Drops the oldest entries of a `Map` or `Set` past a size, in amortized O(1) per entry
 * dropped, however large the collection and however many entries were dropped before.
 *
 * Why not `map.delete(map.keys().next().value)`: a deleted entry stays in V8's table as a hole
 * until the table is rebuilt, and a fresh iterator walks every hole before the oldest live
 * entry. Dropped from the front one at a time, holes pile up there: at 10 000 entries each
 * drop cost ~5 µs, at 100 000 ~40 µs. One iterator kept across drops has already passed them.
 * An iterator of a `Map` or `Set` also sees entries added after it was made, and skips those
 * deleted before it reached them, so it keeps answering "the oldest" however the collection
 * changes (an entry deleted and set again counts from when it was set again).
 *
 * @example
 * const answers = new Map<string, string>()
 * const oldest = new OldestFirst(answers)
 * answers.set(key, answer)
 * oldest.trimTo(10_000)
 */
export class OldestFirst<K> {
  readonly #entries: InsertionOrdered<K>
  #keys: Iterator<K> | undefined

  constructor(entries: InsertionOrdered<K>) {
    this.#entries = entries
  }

  /** Deletes the oldest entries until at most `maxSize` are left. */
  trimTo(maxSize: number): void {
    while (this.#entries.size > maxSize) {
      const oldest = this.#next()
      if (oldest.done) return
      this.#entries.delete(oldest.value)
    }
  }

  // A finished iterator stays finished whatever is added later: a new one starts from the
  // collection's (new) beginning.
  #next(): IteratorResult<K> {
    const step = this.#keys?.next()
    if (step && !step.done) return step
    this.#keys = this.#entries.keys()
    return this.#keys.next()
  }
}
