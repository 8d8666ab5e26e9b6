// One change of a `SnapshotMap`, and the slot for the change after it. A snapshot holds the
// slot that was empty when it was taken; later changes fill it in. Only older snapshots
// reach old slots, so a change is garbage once every snapshot before it is.
type Slot<Value> = {
  change?: { key: string; had: boolean; previous: Value | undefined }
  next?: Slot<Value>
}

/**
 * A map whose every version is immutable, at O(1) per change: `set` and `delete` return the
 * new version as a `ReadonlyMap` and leave the earlier ones as they were. The latest version
 * reads the live map; an earlier one reads it through the changes made since (a reverse diff),
 * and copies it once if it is iterated.
 *
 * @example
 * const map = new SnapshotMap<number>()
 * const one = map.set('a', 1)
 * const two = map.set('a', 2)
 * one.get('a') // 1
 * two.get('a') // 2
 */
export class SnapshotMap<Value> {
  readonly #live = new Map<string, Value>()
  #tail: Slot<Value> = {}
  #latest: MapVersion<Value> = new MapVersion(this.#live, this.#tail, 0)

  /** The newest version. */
  get current(): ReadonlyMap<string, Value> {
    return this.#latest
  }

  /**
   * A copy of the newest version that holds on to no later change: for a version kept for a
   * long time (a store's initial state), which would otherwise keep every change after it.
   */
  detached(): ReadonlyMap<string, Value> {
    return new MapVersion(new Map(this.#live), {}, this.#live.size)
  }

  set(key: string, value: Value): ReadonlyMap<string, Value> {
    this.#record(key)
    this.#live.set(key, value)
    return this.#advance()
  }

  delete(key: string): ReadonlyMap<string, Value> {
    if (!this.#live.has(key)) return this.#latest
    this.#record(key)
    this.#live.delete(key)
    return this.#advance()
  }

  #record(key: string): void {
    const slot = this.#tail
    slot.change = { key, had: this.#live.has(key), previous: this.#live.get(key) }
    slot.next = {}
    this.#tail = slot.next
  }

  #advance(): ReadonlyMap<string, Value> {
    this.#latest = new MapVersion(this.#live, this.#tail, this.#live.size)
    return this.#latest
  }
}

class MapVersion<Value> implements ReadonlyMap<string, Value> {
  readonly size: number
  readonly #live: Map<string, Value>
  readonly #since: Slot<Value>
  #copy: Map<string, Value> | undefined

  constructor(live: Map<string, Value>, since: Slot<Value>, size: number) {
    this.#live = live
    this.#since = since
    this.size = size
  }

  get(key: string): Value | undefined {
    if (this.#copy) return this.#copy.get(key)
    // The first later change of `key` knows what it was in this version.
    for (let slot: Slot<Value> | undefined = this.#since; slot?.change; slot = slot.next) {
      if (slot.change.key === key) return slot.change.previous
    }
    return this.#live.get(key)
  }

  has(key: string): boolean {
    if (this.#copy) return this.#copy.has(key)
    for (let slot: Slot<Value> | undefined = this.#since; slot?.change; slot = slot.next) {
      if (slot.change.key === key) return slot.change.had
    }
    return this.#live.has(key)
  }

  forEach(
    callback: (value: Value, key: string, map: ReadonlyMap<string, Value>) => void,
    thisArg?: unknown,
  ): void {
    for (const [key, value] of this.#entries()) callback.call(thisArg, value, key, this)
  }

  entries() {
    return this.#entries().entries()
  }

  keys() {
    return this.#entries().keys()
  }

  values() {
    return this.#entries().values()
  }

  [Symbol.iterator]() {
    return this.#entries().entries()
  }

  // The latest version iterates the live map; an earlier one a copy with the later changes
  // undone, newest first.
  #entries(): Map<string, Value> {
    if (this.#copy) return this.#copy
    if (!this.#since.change) return this.#live
    const later: NonNullable<Slot<Value>['change']>[] = []
    for (let slot: Slot<Value> | undefined = this.#since; slot?.change; slot = slot.next) {
      later.push(slot.change)
    }
    const copy = new Map(this.#live)
    for (let index = later.length - 1; index >= 0; index -= 1) {
      const change = later[index]!
      if (change.had) copy.set(change.key, change.previous as Value)
      else copy.delete(change.key)
    }
    this.#copy = copy
    return copy
  }
}
