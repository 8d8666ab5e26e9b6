import { describe, expect, it } from 'vitest'
import { loopParties } from './loop-parties'

describe('loopParties', () => {
  it('names each party of a loop once, in the order they joined', () => {
    expect(loopParties(['a', 'b', 'c', 'b', 'c', 'b', 'c'])).toBe('a → b → c')
    expect(loopParties(['solo'])).toBe('solo')
    expect(loopParties([])).toBe('')
  })
})
