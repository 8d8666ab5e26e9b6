import { describe, expect, it } from 'vitest'
import { defaultPriceTable, findPrice, priceUsage } from './price-table'

describe('priceUsage', () => {
  it('prices a listed model per million tokens', () => {
    expect(
      priceUsage('openai:gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 }),
    ).toBeCloseTo(0.75, 10)
    expect(
      priceUsage('anthropic:claude-sonnet-4-0', { inputTokens: 2000, outputTokens: 1000 }),
    ).toBeCloseTo(0.021, 10)
  })

  it('gives offline models their nominal price through the provider wildcard', () => {
    expect(findPrice('offline:anything')).toEqual({ inputPerMTok: 0.1, outputPerMTok: 0.4 })
    expect(priceUsage('offline:default', { inputTokens: 100, outputTokens: 50 })).toBeCloseTo(
      0.00003,
      12,
    )
  })

  it('prices an unknown model at zero instead of failing', () => {
    expect(priceUsage('mystery:model', { inputTokens: 5000, outputTokens: 5000 })).toBe(0)
    expect(priceUsage('no-colon', { inputTokens: 1 })).toBe(0)
  })

  it('prefers an exact entry of a given table over its wildcard', () => {
    const table = {
      ...defaultPriceTable,
      'offline:premium': { inputPerMTok: 10, outputPerMTok: 10 },
    }
    expect(priceUsage('offline:premium', { inputTokens: 1_000_000 }, table)).toBe(10)
    expect(priceUsage('offline:default', { inputTokens: 1_000_000 }, table)).toBeCloseTo(0.1, 10)
  })

  it('reads a table that changes between calls as it is at each call', () => {
    const table: Record<string, { inputPerMTok: number; outputPerMTok: number }> = {
      'acme:*': { inputPerMTok: 1, outputPerMTok: 1 },
    }
    expect(findPrice('acme:fast', table).inputPerMTok).toBe(1)
    table['acme:*'] = { inputPerMTok: 2, outputPerMTok: 2 }
    expect(findPrice('acme:fast', table).inputPerMTok).toBe(2)
    table['acme:fast'] = { inputPerMTok: 3, outputPerMTok: 3 }
    expect(findPrice('acme:fast', table).inputPerMTok).toBe(3)
    // A frozen table's fallbacks are kept, and give the same answer every time.
    const frozen = Object.freeze({ 'acme:*': { inputPerMTok: 4, outputPerMTok: 4 } })
    expect(findPrice('acme:fast', frozen)).toBe(findPrice('acme:fast', frozen))
    expect(findPrice('acme:fast', frozen).inputPerMTok).toBe(4)
    expect(findPrice('other:model', frozen)).toEqual({ inputPerMTok: 0, outputPerMTok: 0 })
  })
})
