import type { Kysely, Transaction } from 'kysely'
import type { Database, StoredUsage } from './database'
import type { GroupCommit, WriteChannel } from './group-commit'
import { jsonTable } from './json-rows'

export type SpendRow = StoredUsage & { key: string }

export type LedgerEntry = {
  runId?: string
  wallet: string
  usage: StoredUsage
  /** The step that spent it (`steps[1].then[0]`). */
  stepPath?: string
  /** The run's attempt (its execution number, see `runs.claim`) that spent it. */
  attempt?: number
  /** The bus conversation a hosted agent answered a message in. */
  correlationId?: string
  /** The bus message whose answer spent it. */
  messageId?: string
}

/** What the answer to one bus message cost, for one wallet (the agent's own, or a sub-agent's). */
export type MessageSpend = StoredUsage & { messageId: string; wallet: string }

/** One row of the ledger, as `GET /api/v1/ledger` shows it. */
export type StoredLedgerEntry = StoredUsage & {
  id: number
  runId: string | null
  wallet: string
  stepPath: string | null
  attempt: number | null
  at: string
}

/** What one run has on the books: in total, and per wallet. */
export type RunBooks = { usage: StoredUsage; usageByWallet: Record<string, StoredUsage> }

// Summed doubles carry float noise; cost books are kept to 1e-12 USD.
const roundUsd = (costUsd: number) => Math.round(costUsd * 1e12) / 1e12

/** Whether an entry is booked: an entry of zeros records nothing. */
export const spentSomething = (entry: LedgerEntry) =>
  entry.usage.calls > 0 || entry.usage.tokens > 0 || entry.usage.costUsd > 0

/** Ledger rows of a turn of the group commit, in one insert. */
const ledgerRecords: WriteChannel<LedgerEntry[]> = {
  name: 'ledger records',
  store: (executor, records) => insertLedgerEntries(executor, records.flat()),
  // Only entries that spent something are written through it (see `record`).
  statement: (_db, records) => ledgerInsert(records.flat()),
}

/** Writes the entries that spent something (an entry of zeros records nothing), in `executor`. */
export async function insertLedgerEntries(
  executor: Kysely<Database> | Transaction<Database>,
  entries: LedgerEntry[],
): Promise<void> {
  const spent = entries.filter(spentSomething)
  if (spent.length === 0) return
  await ledgerInsert(spent).execute(executor)
}

type LedgerRow = {
  run_id: string | undefined
  wallet: string
  calls: number
  tokens: number
  cost_usd: number
  step_path: string | undefined
  attempt: number | undefined
  correlation_id: string | undefined
  message_id: string | undefined
}

/** The ledger's table, its columns as its rows are inserted. */
export const LEDGER = jsonTable<LedgerRow>('ledger', {
  run_id: 'text',
  wallet: 'text',
  calls: 'double precision',
  tokens: 'double precision',
  cost_usd: 'double precision',
  step_path: 'text',
  attempt: 'integer',
  correlation_id: 'text',
  message_id: 'text',
})

/** An entry's row of the ledger, booked to `runId` (the entry's own run by default). */
export function ledgerRow(entry: LedgerEntry, runId = entry.runId): LedgerRow {
  return {
    run_id: runId,
    wallet: entry.wallet,
    calls: entry.usage.calls,
    tokens: entry.usage.tokens,
    cost_usd: entry.usage.costUsd,
    step_path: entry.stepPath,
    attempt: entry.attempt,
    correlation_id: entry.correlationId,
    message_id: entry.messageId,
  }
}

const ledgerInsert = (spent: LedgerEntry[]) => LEDGER.insert(spent.map((entry) => ledgerRow(entry)))

/**
 * The spend ledger: every charge by wallet, with the run, the step and the run's attempt it
 * belongs to (if any).
 *
 * @example
 * await createLedgerRepository(db).spend({ by: 'wallet' })
 */
export function createLedgerRepository(db: Kysely<Database>, writer?: GroupCommit) {
  return {
    /** Books `entries`; through the process's group commit when there is one (resolved once committed). */
    async record(entries: LedgerEntry[]) {
      if (!writer) return insertLedgerEntries(db, entries)
      const spent = entries.filter(spentSomething)
      if (spent.length > 0) await writer.write(ledgerRecords, spent)
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
        costUsd: roundUsd(Number(row.cost_usd)),
      }))
    },

    /** The rows themselves, oldest first, of one run and/or one wallet. */
    async entries(options: {
      runId?: string
      wallet?: string
      limit: number
      offset: number
    }): Promise<{ entries: StoredLedgerEntry[]; total: number }> {
      let query = db.selectFrom('ledger')
      if (options.runId) query = query.where('run_id', '=', options.runId)
      if (options.wallet) query = query.where('wallet', '=', options.wallet)
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('id').limit(options.limit).offset(options.offset).execute(),
        query.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
      ])
      return {
        entries: rows.map((row) => ({
          id: row.id,
          runId: row.run_id,
          wallet: row.wallet,
          stepPath: row.step_path,
          attempt: row.attempt,
          calls: Number(row.calls),
          tokens: Number(row.tokens),
          costUsd: Number(row.cost_usd),
          at: new Date(row.at).toISOString(),
        })),
        total: Number(count.count),
      }
    },

    /**
     * What the answers in one bus conversation cost, per message answered and per wallet, in
     * the order they were first charged.
     */
    async spendOfConversation(correlationId: string): Promise<MessageSpend[]> {
      const rows = await db
        .selectFrom('ledger')
        .select((eb) => [
          'message_id',
          'wallet',
          eb.fn.min<number>('id').as('first'),
          eb.fn.sum<number>('calls').as('calls'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('cost_usd').as('cost_usd'),
        ])
        .where('correlation_id', '=', correlationId)
        .where('message_id', 'is not', null)
        .groupBy(['message_id', 'wallet'])
        .orderBy('first')
        .execute()
      return rows.map((row) => ({
        messageId: String(row.message_id),
        wallet: row.wallet,
        calls: Number(row.calls),
        tokens: Number(row.tokens),
        costUsd: roundUsd(Number(row.cost_usd)),
      }))
    },

    /** What a run has on the books, every attempt included. */
    async booksOfRun(runId: string): Promise<RunBooks> {
      const rows = await db
        .selectFrom('ledger')
        .select((eb) => [
          'wallet',
          eb.fn.sum<number>('calls').as('calls'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('cost_usd').as('cost_usd'),
        ])
        .where('run_id', '=', runId)
        .groupBy('wallet')
        .execute()
      const books: RunBooks = { usage: { calls: 0, tokens: 0, costUsd: 0 }, usageByWallet: {} }
      for (const row of rows) {
        const usage = {
          calls: Number(row.calls),
          tokens: Number(row.tokens),
          costUsd: roundUsd(Number(row.cost_usd)),
        }
        books.usageByWallet[row.wallet] = usage
        books.usage.calls += usage.calls
        books.usage.tokens += usage.tokens
        books.usage.costUsd = roundUsd(books.usage.costUsd + usage.costUsd)
      }
      return books
    },
  }
}

export type LedgerRepository = ReturnType<typeof createLedgerRepository>
