import { describe, expect, it } from 'vitest'
import { countOf } from './count-of'

describe('countOf', () => {
  it('says one thing in the singular and any other count in the plural', () => {
    expect(countOf(1, 'member')).toBe('1 member')
    expect(countOf(2, 'member')).toBe('2 members')
    expect(countOf(0, 'vote')).toBe('0 votes')
  })
})
