import type { Kysely } from 'kysely'
import type { Database, StoredUsage } from './database'
import type { GroupCommit } from './group-commit'
import type { LedgerEntry } from './ledger-repository'
import { storeRunWrite } from './run-writes'
import type { RunError, RunStatus, StoredStep } from './stored-run'

/**
 * What an executor commits: each finished top-level step with the state the run continues
 * from, and how the run ended; and the finished steps read back.
 *
 * @example
 * const commits = createRunCommitsRepository(db)
 * await commits.commitStep({ runId, step, events: [], state, usage, usageByWallet, executedBy })
 */
export function createRunCommitsRepository(db: Kysely<Database>, writer?: GroupCommit) {
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
      // One statement, no explicit transaction (through the group commit, the statement of
      // every run's writes in its turn): the run's row is updated only while this process
      // holds it (a takeover's claim waits for the row, or this sees the claim and updates
      // nothing), and the step, its events and its ledger rows are inserted only if the row
      // was. All of it commits at once, or none of it.
      await storeRunWrite(db, writer, {
        runId: input.runId,
        ...(input.executedBy ? { executedBy: input.executedBy } : {}),
        update: { state: input.state, usage: input.usage, usageByWallet: input.usageByWallet },
        steps: [input.step],
        events: input.events,
        ledger: input.ledger ?? [],
      })
    },

    /** Records how a run ended (or paused), with its remaining ledger entries. */
    async finish(input: {
      runId: string
      status: RunStatus
      output: unknown
      error: RunError | null
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
      await storeRunWrite(db, writer, {
        runId: input.runId,
        ...(input.executedBy ? { executedBy: input.executedBy } : {}),
        update: {
          state: input.state,
          usage: input.usage,
          usageByWallet: input.usageByWallet,
          end: {
            status: input.status,
            output: input.output ?? null,
            error: input.error,
            question: input.question,
          },
        },
        steps: input.steps ?? [],
        events: input.events ?? [],
        ledger: input.ledger ?? [],
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
