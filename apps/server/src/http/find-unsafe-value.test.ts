import { describe, expect, it } from 'vitest'
import { findUnsafeValue } from './find-unsafe-value'

const nested = (depth: number, leaf: unknown): unknown =>
  depth === 0 ? leaf : { next: nested(depth - 1, leaf) }

describe('findUnsafeValue', () => {
  it('finds nothing in safe values of any shape', () => {
    for (const value of [
      undefined,
      null,
      7,
      'text',
      {},
      [],
      { wallet: '0x1111111111111111111111111111111111111111' },
      { a: [1, 'b', { c: [null, true, ['d']] }], e: { f: 'g' } },
      Object.assign(Object.create(null), { q: 'x' }),
      // biome-ignore lint/suspicious/noSparseArray: a hole is not a value
      [1, , 3],
      nested(64, 'leaf'),
    ]) {
      expect(findUnsafeValue(value, 'body')).toBeUndefined()
    }
  })

  it('names the first NUL character, in a string or a key, by its path', () => {
    expect(findUnsafeValue('a\u0000b', 'params')).toEqual({
      path: 'params',
      message: 'must not contain a NUL character (\\u0000)',
    })
    expect(findUnsafeValue({ a: [1, { b: ['ok', 'x\u0000'] }] }, 'body')).toEqual({
      path: 'body.a.1.b.1',
      message: 'must not contain a NUL character (\\u0000)',
    })
    expect(findUnsafeValue({ ok: 1, inner: { 'k\u0000': 1 } }, 'body')).toEqual({
      path: 'body.inner',
      message: 'must not have a key with a NUL character (\\u0000)',
    })
    // Two of them: the first member's is the one named.
    expect(findUnsafeValue({ first: { x: 'a\u0000' }, second: 'b\u0000' }, 'body')?.path).toBe(
      'body.first.x',
    )
  })

  it('names an object nested deeper than the limit, and no deeper string passes', () => {
    expect(findUnsafeValue(nested(65, 'leaf'), 'body')?.message).toBe(
      'is nested deeper than 64 levels',
    )
    expect(findUnsafeValue(nested(3, {}), 'body', 3)).toEqual({
      path: 'body.next.next.next',
      message: 'is nested deeper than 3 levels',
    })
    expect(findUnsafeValue(nested(2, 'a\u0000'), 'q', 3)?.path).toBe('q.next.next')
    // Deeper than the stack could recurse: walked without recursion.
    let deep: unknown = 'end'
    for (let level = 0; level < 100_000; level++) deep = [deep]
    expect(findUnsafeValue(deep, 'body')?.path).toBe(`body${'.0'.repeat(64)}`)
  })
})
