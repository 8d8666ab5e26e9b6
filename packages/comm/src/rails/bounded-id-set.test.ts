import { describe, expect, it } from 'vitest'
import { BoundedIdSet } from './bounded-id-set'

describe('BoundedIdSet', () => {
  it('drops a duplicate while its id is among the most recent, and forgets the oldest first', () => {
    const ids = new BoundedIdSet(3)
    expect(['a', 'b', 'c'].map((id) => ids.add(id))).toEqual([true, true, true])
    expect(ids.add('b')).toBe(false)
    expect(ids.add('d')).toBe(true)
    expect(ids.size).toBe(3)
    expect(ids.has('a')).toBe(false)
    // a duplicate does not make its id recent again: 'b' is the oldest now
    expect(ids.add('e')).toBe(true)
    expect(['b', 'c', 'd', 'e'].map((id) => ids.has(id))).toEqual([false, true, true, true])
    expect(ids.add('a')).toBe(true)
  })

  it('keeps exactly its capacity across many more ids than it holds', () => {
    const ids = new BoundedIdSet(100)
    for (let index = 0; index < 10_000; index += 1) ids.add(`msg_${index}`)
    expect(ids.size).toBe(100)
    expect(ids.has('msg_9899')).toBe(false)
    expect(ids.has('msg_9900')).toBe(true)
    expect(ids.add('msg_9999')).toBe(false)
  })
})
