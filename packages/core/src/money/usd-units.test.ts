import { describe, expect, it } from 'vitest'
import { fromUsdUnits, roundUsd, sumUsd, toUsdUnits } from './usd-units'

describe('toUsdUnits', () => {
  it('reads a number as the decimal it prints as', () => {
    expect(toUsdUnits(0.1)).toBe(100_000_000_000_000n)
    expect(toUsdUnits(999.999)).toBe(999_999_000_000_000_000n)
    expect(toUsdUnits(4e-13)).toBe(400n)
    expect(toUsdUnits(1e12)).toBe(10n ** 27n)
  })

  it('rounds digits past the 15th decimal half up', () => {
    expect(toUsdUnits(4e-16)).toBe(0n)
    expect(toUsdUnits(5e-16)).toBe(1n)
    expect(toUsdUnits(0.000021499999999999997)).toBe(21_500_000_000n)
  })
})

describe('sumUsd', () => {
  it('adds amounts exactly', () => {
    expect(sumUsd([0.1, 0.2])).toBe(0.3)
    expect(sumUsd(Array.from({ length: 1000 }, () => 999.999))).toBe(999_999)
    expect(sumUsd(Array.from({ length: 100_000 }, () => 4e-13))).toBe(4e-8)
  })
})

describe('roundUsd', () => {
  it('drops float noise and keeps the value otherwise', () => {
    expect(roundUsd(0.000021499999999999997)).toBe(0.0000215)
    expect(roundUsd(0.1 + 0.2)).toBe(0.3)
    expect(roundUsd(123.456)).toBe(123.456)
    expect(fromUsdUnits(-5n)).toBe(-5e-15)
  })

  it('rounds amounts under a dollar exactly as the books do', () => {
    // Its shortcut for them must give what a round trip through the books' units gives.
    let seed = 7
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const samples = [Number.MIN_VALUE, 5e-16, 1.5e-15, 2.5e-15, 0.1 + 0.2, 1 - Number.EPSILON]
    for (let index = 0; index < 2000; index++) samples.push(next() * 10 ** -Math.floor(next() * 16))
    for (const value of samples) {
      expect(roundUsd(value)).toBe(fromUsdUnits(toUsdUnits(value)))
      expect(roundUsd(-value)).toBe(-fromUsdUnits(toUsdUnits(value)))
    }
    expect(Object.is(roundUsd(0), 0)).toBe(true)
    expect(Object.is(roundUsd(-0), 0)).toBe(true)
  })
})
