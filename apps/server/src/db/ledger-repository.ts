import type { Kysely, Transaction } from 'kysely'
import type { Database, StoredUsage } from './database'

export type SpendRow = StoredUsage & { key: string }

export type LedgerEntry = { runId?: string; wallet: string; usage: StoredUsage }

/** Writes the entries that spent something (an entry of zeros records nothing), in `executor`. */
export async function insertLedgerEntries(
  executor: Kysely<Database> | Transaction<Database>,
  entries: LedgerEntry[],
): Promise<void> {
  const spent = entries.filter(
    (entry) => entry.usage.calls > 0 || entry.usage.tokens > 0 || entry.usage.costUsd > 0,
  )
  if (spent.length === 0) return
  await executor
    .insertInto('ledger')
    .values(
      spent.map((entry) => ({
        run_id: entry.runId ?? null,
        wallet: entry.wallet,
        calls: entry.usage.calls,
        tokens: entry.usage.tokens,
        cost_usd: entry.usage.costUsd,
      })),
    )
    .execute()
}

/**
 * The spend ledger: every charge by wallet, with the run it belongs to (if any).
 *
 * @example
 * await createLedgerRepository(db).spend({ by: 'wallet' })
 */
export function createLedgerRepository(db: Kysely<Database>) {
  return {
    async record(entries: LedgerEntry[]) {
      await insertLedgerEntries(db, entries)
    },

    /** Total spend grouped by wallet or by run, since a moment (inclusive). */
    async spend(options: { by: 'wallet' | 'run'; since?: Date }): Promise<SpendRow[]> {
      const column = options.by === 'wallet' ? 'wallet' : 'run_id'
      let query = db
        .selectFrom('ledger')
        .select((eb) => [
          eb.ref(column).as('key'),
          eb.fn.sum<number>('calls').as('calls'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('cost_usd').as('cost_usd'),
        ])
        .groupBy(column)
        .orderBy(column)
      if (options.by === 'run') query = query.where('run_id', 'is not', null)
      if (options.since) query = query.where('at', '>=', options.since)
      const rows = await query.execute()
      return rows.map((row) => ({
        key: String(row.key),
        calls: Number(row.calls),
        tokens: Number(row.tokens),
        // Summed doubles carry float noise; cost books are kept to 1e-12 USD.
        costUsd: Math.round(Number(row.cost_usd) * 1e12) / 1e12,
      }))
    },
  }
}

export type LedgerRepository = ReturnType<typeof createLedgerRepository>
