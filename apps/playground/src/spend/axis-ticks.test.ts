import { describe, expect, it } from 'vitest'
import { axisTicks } from './axis-ticks'

describe('axisTicks', () => {
  it('spaces tiny offline costs evenly, each label with the same decimals', () => {
    expect(axisTicks(0.00059).labels).toEqual(['$0', '$0.0002', '$0.0004', '$0.0006'])
    expect(axisTicks(0.0000215).labels).toEqual(['$0', '$0.00001', '$0.00002', '$0.00003'])
  })

  it('reaches past the largest value with equal steps, and survives no spend at all', () => {
    for (const max of [0.5, 3, 12.34, 0.0123]) {
      const { ticks } = axisTicks(max)
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max)
      const steps = ticks.slice(1).map((tick, index) => tick - ticks[index]!)
      for (const step of steps) expect(step).toBeCloseTo(steps[0]!, 12)
    }
    expect(axisTicks(0).ticks.length).toBeGreaterThan(1)
  })
})
