import { describe, expect, it } from 'vitest'
import { mergePatch } from './merge-patch'

describe('mergePatch', () => {
  it('changes the fields an object names, at every depth, and keeps the others', () => {
    const target = { name: 'a', card: { tagline: 't', trustTier: 'high', examples: ['x'] } }
    expect(mergePatch(target, { card: { tagline: 'u' } })).toEqual({
      name: 'a',
      card: { tagline: 'u', trustTier: 'high', examples: ['x'] },
    })
    // Neither side is changed.
    expect(target.card.tagline).toBe('t')
  })

  it('removes a field given null, replaces arrays and values, and adds what is new', () => {
    expect(
      mergePatch(
        { persona: 'p', tools: ['a', 'b'], config: { depth: 1 } },
        { persona: null, tools: ['c'], config: { depth: null, mode: 'x' }, endpoint: 'e' },
      ),
    ).toEqual({ tools: ['c'], config: { mode: 'x' }, endpoint: 'e' })
  })

  it('follows RFC 7396 where the patch or the target is not an object', () => {
    expect(mergePatch({ a: 1 }, ['x'])).toEqual(['x'])
    expect(mergePatch('s', { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } })
    expect(mergePatch({ a: [1] }, { a: { b: 1 } })).toEqual({ a: { b: 1 } })
  })

  it('never sets a prototype', () => {
    const merged = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as object
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
