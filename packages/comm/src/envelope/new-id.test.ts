import { describe, expect, it } from 'vitest'
import { newId } from './new-id'

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'

describe('newId', () => {
  it('is the prefix, an underscore and a version 4 UUID, never the same twice', () => {
    const ids = new Set<string>()
    // More than one batch of random bytes (256 ids), so the refill is crossed too.
    for (let index = 0; index < 2_000; index += 1) {
      const id = newId('msg')
      expect(id).toMatch(new RegExp(`^msg_${UUID_V4}$`))
      ids.add(id)
    }
    expect(ids.size).toBe(2_000)
  })

  it('spreads its hex digits evenly (the random bytes are used, not a constant)', () => {
    const counts = new Map<string, number>()
    for (let index = 0; index < 1_000; index += 1) {
      for (const digit of newId('corr').slice(-12)) counts.set(digit, (counts.get(digit) ?? 0) + 1)
    }
    expect(counts.size).toBe(16)
    for (const count of counts.values()) expect(count).toBeGreaterThan(500)
  })

  it('keeps a prefix that is not printable ASCII as it is', () => {
    expect(newId('café')).toMatch(new RegExp(`^café_${UUID_V4}$`))
    expect(newId('')).toMatch(new RegExp(`^_${UUID_V4}$`))
    const long = 'p'.repeat(100)
    expect(newId(long).startsWith(`${long}_`)).toBe(true)
  })
})
