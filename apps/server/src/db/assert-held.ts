import type { Transaction } from 'kysely'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database } from './database'

/**
 * Locks the run's row for the transaction: a takeover (`claim`) waits for it, or it sees the
 * claim. Every write fenced by `executedBy` starts with it; a process that lost its run gets
 * `RUN_TAKEN_OVER` and writes nothing.
 *
 * @example
 * await db.transaction().execute(async (trx) => { await assertHeld(trx, runId, me); ... })
 */
export async function assertHeld(
  trx: Transaction<Database>,
  runId: string,
  executedBy: string,
): Promise<void> {
  const row = await trx
    .selectFrom('runs')
    .select(['status', 'executed_by'])
    .where('id', '=', runId)
    .forUpdate()
    .executeTakeFirst()
  if (row?.status !== 'running' || row.executed_by !== executedBy) {
    throw new RunTakenOverError({ runId, executedBy })
  }
}
