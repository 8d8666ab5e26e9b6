import { describe, expect, it } from 'vitest'
import { formatUsd } from './format-usd'

describe('formatUsd', () => {
  it('shows tiny offline costs with two significant digits instead of $0.0000', () => {
    expect(formatUsd(0.000024)).toBe('$0.000024')
    expect(formatUsd(0.0000285)).toBe('$0.000029')
    expect(formatUsd(0.12345)).toBe('$0.1235')
    expect(formatUsd(0)).toBe('$0')
    expect(formatUsd(undefined)).toBe('—')
  })
})
