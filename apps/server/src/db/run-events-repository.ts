import { type Kysely, sql } from 'kysely'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database } from './database'
import { eventRows } from './run-write-rows'
import type { StoredEvent } from './stored-run'

/**
 * A run's stored events, which SSE readers replay: appended (fenced by the executing
 * process), dropped from a sequence on, read in order.
 *
 * @example
 * const events = createRunEventsRepository(db)
 * await events.appendEvents(runId, [{ sequence: 0, type: 'run-start' }])
 */
export function createRunEventsRepository(db: Kysely<Database>) {
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
      // One statement: the run's row locked while this process holds it (a takeover's claim
      // waits for it, or this sees the claim and locks nothing), the events inserted only then.
      const { rows } = await sql<{ held: number }>`
        with held as materialized (
          select id from runs
          where id = ${runId} and status = 'running' and executed_by = ${executedBy}
          for update
        )${eventRows(runId, events)}
        select count(*)::integer as held from held`.execute(db)
      if (!rows[0]?.held) throw new RunTakenOverError({ runId, executedBy })
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
