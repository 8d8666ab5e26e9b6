import type { Kysely } from 'kysely'
import type { Database } from './database'
import type { GroupCommit } from './group-commit'
import { storeRunWrite } from './run-writes'
import type { StoredEvent } from './stored-run'

/**
 * A run's stored events, which SSE readers replay: appended (fenced by the executing
 * process), dropped from a sequence on, read in order.
 *
 * @example
 * const events = createRunEventsRepository(db)
 * await events.appendEvents(runId, [{ sequence: 0, type: 'run-start' }])
 */
export function createRunEventsRepository(db: Kysely<Database>, writer?: GroupCommit) {
  return {
    /** Forgets events from `sequence` on (a resumed run emits them again). */
    async dropEventsFrom(runId: string, sequence: number): Promise<void> {
      await db
        .deleteFrom('run_events')
        .where('run_id', '=', runId)
        .where('sequence', '>=', sequence)
        .execute()
    },

    /**
     * Appends events (ignoring ones already stored under the same sequence); with
     * `executedBy`, only while that process holds the running run (see `claim`).
     */
    async appendEvents(
      runId: string,
      events: Record<string, unknown>[],
      options: { executedBy?: string } = {},
    ): Promise<void> {
      if (events.length === 0) return
      const { executedBy } = options
      if (!executedBy) {
        await db
          .insertInto('run_events')
          .values(
            events.map((event) => ({
              run_id: runId,
              sequence: event.sequence as number,
              type: event.type as string,
              event: JSON.stringify(event),
            })),
          )
          .onConflict((conflict) => conflict.columns(['run_id', 'sequence']).doNothing())
          .execute()
        return
      }
      // One statement (through the group commit, with every run's writes of its turn): the
      // run's row locked while this process holds it (a takeover's claim waits for it, or this
      // sees the claim and locks nothing), the events inserted only then.
      await storeRunWrite(db, writer, { runId, executedBy, steps: [], events, ledger: [] })
    },

    /** Events after `afterSequence` (all of them when it is -1), in order. */
    async events(runId: string, afterSequence = -1, limit = 1000): Promise<StoredEvent[]> {
      const rows = await db
        .selectFrom('run_events')
        .select(['sequence', 'type', 'event'])
        .where('run_id', '=', runId)
        .where('sequence', '>', afterSequence)
        .orderBy('sequence')
        .limit(limit)
        .execute()
      return rows
    },
  }
}
