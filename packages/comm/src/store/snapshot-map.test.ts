import { describe, expect, it } from 'vitest'
import { SnapshotMap } from './snapshot-map'

describe('SnapshotMap', () => {
  it('leaves every earlier version as it was, through sets, deletes and re-sets', () => {
    const map = new SnapshotMap<number>()
    const empty = map.current
    const one = map.set('a', 1)
    const two = map.set('b', 2)
    const changed = map.set('a', 10)
    const removed = map.delete('b')
    const back = map.set('b', 3)
    expect([...empty]).toEqual([])
    expect([...one]).toEqual([['a', 1]])
    expect([...two]).toEqual([
      ['a', 1],
      ['b', 2],
    ])
    expect(changed.get('a')).toBe(10)
    expect(two.get('a')).toBe(1)
    expect(removed.has('b')).toBe(false)
    expect(two.has('b')).toBe(true)
    expect(back.get('b')).toBe(3)
    expect([one.size, two.size, removed.size, back.size]).toEqual([1, 2, 1, 2])
    expect(map.current).toBe(back)
    expect(map.delete('missing')).toBe(back)
  })

  it('reads an earlier version the same before and after it was iterated', () => {
    const map = new SnapshotMap<string>()
    map.set('x', 'first')
    const early = map.current
    for (let index = 0; index < 100; index += 1) map.set(`k${index}`, 'later')
    map.set('x', 'second')
    expect(early.get('x')).toBe('first')
    expect(early.get('k5')).toBeUndefined()
    expect([...early.keys()]).toEqual(['x'])
    expect(early.get('x')).toBe('first')
    expect(map.current.size).toBe(101)
  })
})
