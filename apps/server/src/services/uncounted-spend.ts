import type { StoredUsage } from '../db/database'
import type { RunBooks } from '../db/ledger-repository'
import { addUsage, emptyBooks } from './add-books'

const positive = (usage: StoredUsage): StoredUsage => ({
  calls: Math.max(0, usage.calls),
  tokens: Math.max(0, usage.tokens),
  costUsd: Math.max(0, usage.costUsd),
})

/**
 * What a run's ledger holds beyond what the state it continues from counts, per wallet: the
 * spend of an attempt that died (or was stopped) before its step was committed. That step runs
 * again, so this is the first attempt's cost, added to the run's usage and charged to its
 * budget before it continues.
 *
 * @example
 * const extra = uncountedSpend(await ledger.booksOfRun(run.id), stateBooks)
 */
export function uncountedSpend(books: RunBooks, counted: RunBooks): RunBooks {
  const usageByWallet: Record<string, StoredUsage> = {}
  let usage = emptyBooks.usage
  for (const [wallet, onBooks] of Object.entries(books.usageByWallet)) {
    const extra = positive(addUsage(onBooks, counted.usageByWallet[wallet] ?? emptyBooks.usage, -1))
    if (extra.calls === 0 && extra.tokens === 0 && extra.costUsd === 0) continue
    usageByWallet[wallet] = extra
    usage = addUsage(usage, extra)
  }
  return { usage, usageByWallet }
}
