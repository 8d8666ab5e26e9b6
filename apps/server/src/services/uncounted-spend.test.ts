import { describe, expect, it } from 'vitest'
import { uncountedSpend } from './uncounted-spend'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'

describe('uncountedSpend', () => {
  it('is what the books hold past the state a run continues from, per wallet', () => {
    const books = {
      usage: { calls: 4, tokens: 40, costUsd: 0.4 },
      usageByWallet: {
        [analyst]: { calls: 1, tokens: 10, costUsd: 0.1 },
        [reviewer]: { calls: 3, tokens: 30, costUsd: 0.3 },
      },
    }
    const state = {
      usage: { calls: 2, tokens: 20, costUsd: 0.2 },
      usageByWallet: {
        [analyst]: { calls: 1, tokens: 10, costUsd: 0.1 },
        [reviewer]: { calls: 1, tokens: 10, costUsd: 0.1 },
      },
    }
    expect(uncountedSpend(books, state)).toEqual({
      usage: { calls: 2, tokens: 20, costUsd: 0.2 },
      usageByWallet: { [reviewer]: { calls: 2, tokens: 20, costUsd: 0.2 } },
    })
  })

  it('is nothing when the state counts all the books hold (a run that committed every charge)', () => {
    const usage = { calls: 1, tokens: 10, costUsd: 0.1 }
    const books = { usage, usageByWallet: { [analyst]: usage } }
    expect(uncountedSpend(books, books)).toEqual({
      usage: { calls: 0, tokens: 0, costUsd: 0 },
      usageByWallet: {},
    })
  })
})
