import { type Kysely, sql } from 'kysely'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database, StoredUsage } from './database'
import type { LedgerEntry } from './ledger-repository'
import { eventRows, heldBy, ledgerRows, stepRows } from './run-write-rows'
import type { RunStatus, StoredStep } from './stored-run'

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`

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
      // One statement, no explicit transaction: the run's row is updated only while this
      // process holds it (a takeover's claim waits for the row, or this sees the claim and
      // updates nothing), and the step, its events and its ledger rows are inserted only if
      // the row was. All of it commits at once, or none of it.
      const { rows } = await sql<{ held: number }>`
        with held as materialized (
          update runs set state = ${json(input.state)}, usage = ${json(input.usage)},
            usage_by_wallet = ${json(input.usageByWallet)}, updated_at = ${new Date()}
          where id = ${input.runId} ${heldBy(input.executedBy)}
          returning id
        )${stepRows(input.runId, [input.step])}${eventRows(input.runId, input.events)}${ledgerRows(
          input.runId,
          input.ledger ?? [],
        )}
        select count(*)::integer as held from held`.execute(db)
      assertWritten(rows[0]?.held, input)
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
      /** The run's last events, stored with its end. */
      events?: Record<string, unknown>[]
      /** Finish only while this process holds the running run (see `claim`). */
      executedBy?: string
    }): Promise<void> {
      // One statement, fenced as `commitStep` is.
      const { rows } = await sql<{ held: number }>`
        with held as materialized (
          update runs set status = ${input.status}, output = ${json(input.output ?? null)},
            error = ${json(input.error)}, usage = ${json(input.usage)},
            usage_by_wallet = ${json(input.usageByWallet)}, state = ${json(input.state)},
            question = ${input.question}, updated_at = ${new Date()}
          where id = ${input.runId} ${heldBy(input.executedBy)}
          returning id
        )${stepRows(input.runId, input.steps ?? [])}${eventRows(input.runId, input.events ?? [])}${ledgerRows(
          input.runId,
          input.ledger ?? [],
        )}
        select count(*)::integer as held from held`.execute(db)
      assertWritten(rows[0]?.held, input)
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

// A fenced write that found its run no longer held wrote nothing: the caller is told.
function assertWritten(held: number | undefined, input: { runId: string; executedBy?: string }) {
  if (input.executedBy && !held) {
    throw new RunTakenOverError({ runId: input.runId, executedBy: input.executedBy })
  }
}
