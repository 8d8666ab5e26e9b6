import type { StoredUsage } from '../db/database'
import type { RunBooks } from '../db/ledger-repository'

/** Books of nothing spent. */
export const emptyBooks: RunBooks = {
  usage: { calls: 0, tokens: 0, costUsd: 0 },
  usageByWallet: {},
}

/** `a + b` in every dimension (money kept to 1e-12 USD, as the ledger keeps it). */
export function addUsage(a: StoredUsage, b: StoredUsage, sign = 1): StoredUsage {
  return {
    calls: a.calls + sign * b.calls,
    tokens: a.tokens + sign * b.tokens,
    costUsd: Math.round((a.costUsd + sign * b.costUsd) * 1e12) / 1e12,
  }
}

/**
 * Two sets of books added together: the totals and each wallet's.
 *
 * @example
 * addBooks(committed, { usage: { calls: 1, tokens: 9, costUsd: 0 }, usageByWallet: { [wallet]: … } })
 */
export function addBooks(a: RunBooks, b: RunBooks): RunBooks {
  const usageByWallet = { ...a.usageByWallet }
  for (const [wallet, usage] of Object.entries(b.usageByWallet)) {
    usageByWallet[wallet] = addUsage(usageByWallet[wallet] ?? emptyBooks.usage, usage)
  }
  return { usage: addUsage(a.usage, b.usage), usageByWallet }
}
