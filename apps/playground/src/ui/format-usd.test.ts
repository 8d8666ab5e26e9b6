import { describe, expect, it } from 'vitest'
import { formatUsd, formatUsdBeside } from './format-usd'

describe('formatUsd', () => {
  it('shows tiny offline costs with two significant digits instead of $0.0000', () => {
    expect(formatUsd(0.000024)).toBe('$0.000024')
    expect(formatUsd(0.0000285)).toBe('$0.000029')
    expect(formatUsd(0.12345)).toBe('$0.1235')
    expect(formatUsd(0)).toBe('$0')
    expect(formatUsd(undefined)).toBe('—')
  })
})

describe('formatUsdBeside', () => {
  it('shows a budget left finely enough to move by the smallest spend beside it', () => {
    expect(formatUsdBeside(0.5 - 0.000022, 0.000022)).toBe('$0.499978')
    expect(formatUsdBeside(0.5 - 0.000044, 0.000022)).not.toBe(formatUsdBeside(0.499978, 0.000022))
    expect(formatUsdBeside(0.25, 0.01)).toBe('$0.2500')
    expect(formatUsdBeside(0.5, undefined)).toBe('$0.5000')
    expect(formatUsdBeside(undefined, 0.01)).toBe('—')
  })
})
