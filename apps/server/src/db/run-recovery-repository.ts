import type { Kysely } from 'kysely'
import type { Database, StoredUsage } from './database'
import type { RunBooks } from './ledger-repository'
import type { RunStatus } from './stored-run'

/** Which never-started runs to look at (see `neverStarted`). */
export type NeverStartedFilter = { storedBefore?: Date; id?: string; limit?: number }

/**
 * What recovery writes to runs: a run interrupted (by a fault, at start, at shutdown), its
 * usage recounted from its ledger, a run never started found again or discarded.
 *
 * @example
 * const recovery = createRunRecoveryRepository(db)
 * const interrupted = await recovery.interruptUnfinished()
 */
export function createRunRecoveryRepository(db: Kysely<Database>) {
  // A run's usage is set to its ledger's books only while it is in `status`.
  const recountIn = async (id: string, status: RunStatus, books: RunBooks): Promise<boolean> => {
    const result = await db
      .updateTable('runs')
      .set({
        usage: JSON.stringify(books.usage),
        usage_by_wallet: JSON.stringify(books.usageByWallet),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('status', '=', status)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }
  return {
    /**
     * Sets the usage of a run that was cancelled (only then): the process that executed it
     * counts what it spent before it learned of the cancel. Answers whether it was changed.
     */
    async recountCancelled(id: string, books: RunBooks): Promise<boolean> {
      return recountIn(id, 'cancelled', books)
    },

    /**
     * Sets the usage of a run left interrupted (only then) to `books`, its ledger's: the spend of
     * the step cut short is the run's before it is resumed. Answers whether it was changed.
     */
    async recountInterrupted(id: string, books: RunBooks): Promise<boolean> {
      return recountIn(id, 'interrupted', books)
    },

    /**
     * Marks one queued or running run `interrupted` (resumable from its last checkpoint, which
     * stays), with `books` as its usage; a run that ended meanwhile is left as it is. Answers
     * whether it was changed.
     */
    async interrupt(
      id: string,
      books: { usage: StoredUsage; usageByWallet: Record<string, StoredUsage> },
    ): Promise<boolean> {
      const result = await db
        .updateTable('runs')
        .set({
          status: 'interrupted',
          usage: JSON.stringify(books.usage),
          usage_by_wallet: JSON.stringify(books.usageByWallet),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    /**
     * Marks every run that was running, or queued again after it had run (a resume or an
     * answer), as interrupted (at start, after a crash, and at shutdown). Runs queued that
     * never ran stay queued: `neverStarted` finds them for the next start.
     */
    async interruptUnfinished(): Promise<string[]> {
      const rows = await db
        .updateTable('runs')
        .set({ status: 'interrupted', updated_at: new Date() })
        .where((eb) =>
          eb.or([
            eb('status', '=', 'running'),
            eb.and([eb('status', '=', 'queued'), eb('attempt', '>', 0)]),
          ]),
        )
        .returning('id')
        .execute()
      return rows.map((row) => row.id)
    },

    /**
     * Deletes a run that was stored and never started (its queueing failed): nothing of it is
     * left to execute. Answers whether it was deleted.
     */
    async discardUnstarted(id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('runs')
        .where('id', '=', id)
        .where('status', '=', 'queued')
        .where('attempt', '=', 0)
        .executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    /**
     * Runs queued that never ran, oldest first (a single process queues them again at start;
     * among many, each process queues again those stored before `storedBefore`). `id` looks
     * at one run only; `limit` bounds the answer.
     */
    async neverStarted(
      filter: NeverStartedFilter = {},
    ): Promise<{ id: string; kind: 'plan' | 'swarm' }[]> {
      let query = db
        .selectFrom('runs')
        .select(['id', 'kind'])
        .where('status', '=', 'queued')
        .where('attempt', '=', 0)
      if (filter.storedBefore) query = query.where('created_at', '<', filter.storedBefore)
      if (filter.id !== undefined) query = query.where('id', '=', filter.id)
      if (filter.limit !== undefined) query = query.limit(filter.limit)
      const rows = await query.orderBy('created_at').orderBy('id').execute()
      return rows.map((row) => ({ id: row.id, kind: row.kind as 'plan' | 'swarm' }))
    },
  }
}
