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
})
