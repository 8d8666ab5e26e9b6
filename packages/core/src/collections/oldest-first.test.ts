import { describe, expect, it } from 'vitest'
import { type InsertionOrdered, OldestFirst } from './oldest-first'

/**
 * An insertion-ordered table built the way V8 builds a `Map`: a deleted entry stays as a hole
 * that every iterator walks over until the table is compacted. It counts the steps its
 * iterators take, holes included.
 */
class TableWithHoles<K> implements InsertionOrdered<K> {
  readonly #slots: ({ key: K } | undefined)[] = []
  readonly #index = new Map<K, number>()
  steps = 0

  get size(): number {
    return this.#index.size
  }

  add(key: K): void {
    if (this.#index.has(key)) return
    this.#index.set(key, this.#slots.length)
    this.#slots.push({ key })
  }

  delete(key: K): boolean {
    const at = this.#index.get(key)
    if (at === undefined) return false
    this.#slots[at] = undefined
    this.#index.delete(key)
    return true
  }

  keys(): Iterator<K> {
    let at = 0
    return {
      next: () => {
        while (at < this.#slots.length) {
          this.steps += 1
          const slot = this.#slots[at++]
          if (slot) return { done: false, value: slot.key }
        }
        return { done: true, value: undefined }
      },
    }
  }
}

describe('OldestFirst', () => {
  it('drops the oldest entries of a Map past the size, newest kept', () => {
    const answers = new Map<string, number>()
    const oldest = new OldestFirst(answers)
    for (let index = 0; index < 10; index += 1) {
      answers.set(`k${index}`, index)
      oldest.trimTo(3)
    }
    expect([...answers.keys()]).toEqual(['k7', 'k8', 'k9'])
  })

  it('counts an entry deleted and set again from when it was set again, and skips deleted ones', () => {
    const kept = new Map<string, number>()
    const oldest = new OldestFirst(kept)
    for (const key of ['a', 'b', 'c', 'd']) kept.set(key, 0)
    oldest.trimTo(4)
    // 'a' is touched (moved to the newest end), 'b' taken out by its owner
    kept.delete('a')
    kept.set('a', 1)
    kept.delete('b')
    kept.set('e', 0)
    kept.set('f', 0)
    oldest.trimTo(3)
    expect([...kept.keys()]).toEqual(['a', 'e', 'f'])
    oldest.trimTo(1)
    expect([...kept.keys()]).toEqual(['f'])
  })

  it('keeps working on a Set that was emptied, cleared and filled again', () => {
    const ids = new Set<string>()
    const oldest = new OldestFirst(ids)
    ids.add('x')
    oldest.trimTo(0)
    expect(ids.size).toBe(0)
    ids.add('y')
    ids.add('z')
    oldest.trimTo(1)
    expect([...ids]).toEqual(['z'])
    ids.clear()
    for (const id of ['p', 'q', 'r']) ids.add(id)
    oldest.trimTo(2)
    expect([...ids]).toEqual(['q', 'r'])
  })

  it('walks each entry at most once, however many were dropped from the front before', () => {
    const capacity = 500
    const added = 5_000
    const table = new TableWithHoles<number>()
    const oldest = new OldestFirst(table)
    for (let key = 0; key < added; key += 1) {
      table.add(key)
      oldest.trimTo(capacity)
    }
    expect(table.size).toBe(capacity)
    expect(table.steps).toBeLessThanOrEqual(added)

    // What a fresh iterator per drop costs on the same table: every hole, every time.
    const naive = new TableWithHoles<number>()
    for (let key = 0; key < added; key += 1) {
      naive.add(key)
      if (naive.size > capacity) naive.delete(naive.keys().next().value as number)
    }
    expect(naive.steps).toBeGreaterThan(100 * added)
  })
})
