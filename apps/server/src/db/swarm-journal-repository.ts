import type { SwarmJournalEntry } from '@baton/mal'
import type { Kysely } from 'kysely'
import type { Database } from './database'
import { assertHeld } from './runs-repository'

/** One recorded member call of a swarm run. */
export type StoredSwarmCall = SwarmJournalEntry & { key: string; attempt: number; at: string }

/**
 * Swarm runs' journals (migration 0008): the member calls each run made to their end, read at
 * the start of every attempt so a continued run replays them instead of calling again.
 *
 * @example
 * const journal = createSwarmJournalRepository(db)
 * await journal.record({ runId, key: 'r1/lead', entry, attempt: 1, executedBy: 'a' })
 * const calls = await journal.callsOfRun(runId) // [{ key: 'r1/lead', text, usage, attempt: 1, ... }]
 */
export function createSwarmJournalRepository(db: Kysely<Database>) {
  return {
    /** A run's recorded calls, in the order they were recorded. */
    async callsOfRun(runId: string): Promise<StoredSwarmCall[]> {
      const rows = await db
        .selectFrom('swarm_calls')
        .selectAll()
        .where('run_id', '=', runId)
        .orderBy('at')
        .orderBy('key')
        .execute()
      return rows.map((row) => ({
        key: row.key,
        promptHash: row.prompt_hash,
        text: row.text,
        usage: row.usage,
        attempt: Number(row.attempt),
        at: new Date(row.at).toISOString(),
      }))
    },

    /**
     * Records a call (replacing one recorded under the same key with another prompt). With
     * `executedBy`, only while that process holds the running run: a process that lost its run
     * gets `RUN_TAKEN_OVER` and records nothing.
     */
    async record(input: {
      runId: string
      key: string
      entry: SwarmJournalEntry
      attempt: number
      executedBy?: string
    }): Promise<void> {
      const { runId, key, entry, attempt, executedBy } = input
      await db.transaction().execute(async (trx) => {
        if (executedBy) await assertHeld(trx, runId, executedBy)
        const row = {
          run_id: runId,
          key,
          prompt_hash: entry.promptHash,
          text: entry.text,
          usage: JSON.stringify({
            calls: entry.usage.calls,
            tokens: entry.usage.tokens,
            costUsd: entry.usage.costUsd,
          }),
          attempt,
          at: new Date(),
        }
        await trx
          .insertInto('swarm_calls')
          .values(row)
          .onConflict((conflict) =>
            conflict.columns(['run_id', 'key']).doUpdateSet({
              prompt_hash: row.prompt_hash,
              text: row.text,
              usage: row.usage,
              attempt: row.attempt,
              at: row.at,
            }),
          )
          .execute()
      })
    },
  }
}

export type SwarmJournalRepository = ReturnType<typeof createSwarmJournalRepository>
