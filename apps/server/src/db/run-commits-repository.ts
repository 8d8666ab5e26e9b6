import type { Kysely, Transaction } from 'kysely'
import { assertHeld } from './assert-held'
import type { Database, StoredUsage } from './database'
import { insertLedgerEntries, type LedgerEntry } from './ledger-repository'
import type { RunStatus, StoredStep } from './stored-run'

async function insertSteps(
  executor: Kysely<Database> | Transaction<Database>,
  runId: string,
  steps: StoredStep[],
): Promise<void> {
  if (steps.length === 0) return
  await executor
    .insertInto('run_steps')
    .values(
      steps.map((step) => ({
        run_id: runId,
        path: step.path,
        op: step.op,
        save_as: step.saveAs,
        value: JSON.stringify(step.value ?? null),
        usage: JSON.stringify(step.usage),
        wallet: step.wallet,
        duration_ms: step.durationMs,
        sequence: step.sequence,
      })),
    )
    .onConflict((conflict) => conflict.columns(['run_id', 'sequence']).doNothing())
    .execute()
}

/**
 * What an executor commits: each finished top-level step with the state the run continues
 * from, and how the run ended; and the finished steps read back.
 *
 * @example
 * const commits = createRunCommitsRepository(db)
 * await commits.commitStep({ runId, step, events: [], state, usage, usageByWallet, executedBy })
 */
export function createRunCommitsRepository(db: Kysely<Database>) {
  return {
    /**
     * Commits one finished top-level step: its row, its event(s), its ledger entries (if the
     * caller did not write them as they were spent) and the state the run continues from, all
     * at once.
     */
    async commitStep(input: {
      runId: string
      step: StoredStep
      events: Record<string, unknown>[]
      ledger?: LedgerEntry[]
      state: Record<string, unknown>
      usage: StoredUsage
      usageByWallet: Record<string, StoredUsage>
      /** Commit only while this process holds the running run (see `claim`). */
      executedBy?: string
    }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (input.executedBy) await assertHeld(trx, input.runId, input.executedBy)
        await insertSteps(trx, input.runId, [input.step])
        if (input.events.length > 0) {
          await trx
            .insertInto('run_events')
            .values(
              input.events.map((event) => ({
                run_id: input.runId,
                sequence: event.sequence as number,
                type: event.type as string,
                event: JSON.stringify(event),
              })),
            )
            .onConflict((conflict) => conflict.columns(['run_id', 'sequence']).doNothing())
            .execute()
        }
        await insertLedgerEntries(
          trx,
          (input.ledger ?? []).map((entry) => ({ ...entry, runId: input.runId })),
        )
        await trx
          .updateTable('runs')
          .set({
            state: JSON.stringify(input.state),
            usage: JSON.stringify(input.usage),
            usage_by_wallet: JSON.stringify(input.usageByWallet),
            updated_at: new Date(),
          })
          .where('id', '=', input.runId)
          .execute()
      })
    },

    /** Records how a run ended (or paused), with its remaining ledger entries. */
    async finish(input: {
      runId: string
      status: RunStatus
      output: unknown
      error: Record<string, unknown> | null
      usage: StoredUsage
      usageByWallet: Record<string, StoredUsage>
      state: Record<string, unknown> | null
      question: string | null
      ledger?: LedgerEntry[]
      /** Finished top-level steps not committed yet (the last one has no checkpoint after it). */
      steps?: StoredStep[]
      /** Finish only while this process holds the running run (see `claim`). */
      executedBy?: string
    }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (input.executedBy) await assertHeld(trx, input.runId, input.executedBy)
        await insertSteps(trx, input.runId, input.steps ?? [])
        await insertLedgerEntries(
          trx,
          (input.ledger ?? []).map((entry) => ({ ...entry, runId: input.runId })),
        )
        await trx
          .updateTable('runs')
          .set({
            status: input.status,
            output: JSON.stringify(input.output ?? null),
            error: JSON.stringify(input.error),
            usage: JSON.stringify(input.usage),
            usage_by_wallet: JSON.stringify(input.usageByWallet),
            state: JSON.stringify(input.state),
            question: input.question,
            updated_at: new Date(),
          })
          .where('id', '=', input.runId)
          .execute()
      })
    },

    async steps(runId: string): Promise<StoredStep[]> {
      const rows = await db
        .selectFrom('run_steps')
        .selectAll()
        .where('run_id', '=', runId)
        .orderBy('sequence')
        .execute()
      return rows.map((row) => ({
        path: row.path,
        op: row.op,
        saveAs: row.save_as,
        value: row.value ?? null,
        usage: row.usage,
        wallet: row.wallet,
        durationMs: row.duration_ms,
        sequence: row.sequence,
        finishedAt: new Date(row.finished_at).toISOString(),
      }))
    },
  }
}
