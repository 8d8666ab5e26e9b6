import type { Kysely, Transaction } from 'kysely'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database, StoredUsage } from './database'
import { insertLedgerEntries, type LedgerEntry, type RunBooks } from './ledger-repository'

export type RunStatus =
  | 'queued'
  | 'running'
  | 'paused'
  | 'done'
  | 'stopped'
  | 'failed'
  | 'cancelled'
  | 'interrupted'

/** Statuses a run never leaves. */
export const finalStatuses: readonly RunStatus[] = ['done', 'stopped', 'failed', 'cancelled']

export type StoredRun = {
  id: string
  kind: 'plan' | 'swarm'
  swarmId: string | null
  plan: Record<string, unknown>
  inputs: Record<string, unknown>
  budget: Record<string, unknown> | null
  status: RunStatus
  output: unknown
  error: Record<string, unknown> | null
  usage: StoredUsage
  usageByWallet: Record<string, StoredUsage>
  state: Record<string, unknown> | null
  question: string | null
  /** The process (`BATON_WORKER_NAME`) that executes or executed the run. */
  executedBy: string | null
  /** How many times an executor took the run (see `claim`); 0 while it waits for its first. */
  attempt: number
  /** The principal that started it (`admin`, `key:<id>`, `anonymous`). */
  owner: string
  /** Its OpenTelemetry trace id; null when the server records no traces. */
  traceId: string | null
  createdAt: string
  updatedAt: string
}

export type StoredStep = {
  path: string
  op: string
  saveAs: string | null
  value: unknown
  usage: StoredUsage
  wallet: string | null
  durationMs: number
  sequence: number
  finishedAt: string
}

export type StoredEvent = { sequence: number; type: string; event: Record<string, unknown> }

const zero: StoredUsage = { calls: 0, tokens: 0, costUsd: 0 }

type RunRow = Database['runs'] extends infer _ ? Record<string, unknown> : never

function toRun(row: RunRow): StoredRun {
  return {
    id: row.id as string,
    kind: row.kind as 'plan' | 'swarm',
    swarmId: (row.swarm_id as string | null) ?? null,
    plan: row.plan as Record<string, unknown>,
    inputs: row.inputs as Record<string, unknown>,
    budget: (row.budget as Record<string, unknown> | null) ?? null,
    status: row.status as RunStatus,
    output: row.output ?? null,
    error: (row.error as Record<string, unknown> | null) ?? null,
    usage: row.usage as StoredUsage,
    usageByWallet: row.usage_by_wallet as Record<string, StoredUsage>,
    state: (row.state as Record<string, unknown> | null) ?? null,
    question: (row.question as string | null) ?? null,
    executedBy: (row.executed_by as string | null) ?? null,
    attempt: Number(row.attempt ?? 0),
    owner: (row.owner as string | undefined) ?? 'anonymous',
    traceId: (row.trace_id as string | null | undefined) ?? null,
    createdAt: new Date(row.created_at as Date).toISOString(),
    updatedAt: new Date(row.updated_at as Date).toISOString(),
  }
}

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

/**
 * Runs, their finished steps and their events. A finished step, its event, its ledger
 * entries and the run's new state are written in one transaction (`commitStep`), so a crash
 * leaves either all of them or none.
 *
 * @example
 * const runs = createRunsRepository(db)
 * await runs.create({ id, kind: 'plan', plan, inputs })
 */
export function createRunsRepository(db: Kysely<Database>) {
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
    async create(run: {
      id: string
      kind: 'plan' | 'swarm'
      swarmId?: string
      plan: Record<string, unknown>
      inputs: Record<string, unknown>
      budget?: Record<string, unknown>
      /** The principal that starts it (default `anonymous`). */
      owner?: string
    }): Promise<void> {
      await db
        .insertInto('runs')
        .values({
          id: run.id,
          kind: run.kind,
          swarm_id: run.swarmId ?? null,
          plan: JSON.stringify(run.plan),
          inputs: JSON.stringify(run.inputs),
          budget: JSON.stringify(run.budget ?? null),
          status: 'queued',
          output: JSON.stringify(null),
          error: JSON.stringify(null),
          usage: JSON.stringify(zero),
          usage_by_wallet: JSON.stringify({}),
          state: JSON.stringify(null),
          owner: run.owner ?? 'anonymous',
        })
        .execute()
    },

    async find(id: string): Promise<StoredRun | undefined> {
      const row = await db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst()
      return row ? toRun(row as unknown as RunRow) : undefined
    },

    async list(options: { status?: string; owner?: string; limit: number; offset: number }) {
      let query = db.selectFrom('runs')
      if (options.status) query = query.where('status', '=', options.status)
      if (options.owner) query = query.where('owner', '=', options.owner)
      const [rows, count] = await Promise.all([
        query
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .limit(options.limit)
          .offset(options.offset)
          .execute(),
        query.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
      ])
      return {
        runs: rows.map((row) => toRun(row as unknown as RunRow)),
        total: Number(count.count),
      }
    },

    async setStatus(id: string, status: RunStatus): Promise<void> {
      await db
        .updateTable('runs')
        .set({ status, updated_at: new Date() })
        .where('id', '=', id)
        .execute()
    },

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
     * Takes a run for the process `executedBy` (status `running`); every later commit with
     * that `executedBy` is refused once another process has taken the run. Answers the run's
     * attempt: 1 for its first execution, one more on each takeover, resume or answer.
     */
    async claim(id: string, executedBy: string): Promise<number> {
      const row = await db
        .updateTable('runs')
        .set((eb) => ({
          status: 'running',
          executed_by: executedBy,
          attempt: eb('attempt', '+', 1),
          updated_at: new Date(),
        }))
        .where('id', '=', id)
        .returning('attempt')
        .executeTakeFirst()
      return row?.attempt ?? 0
    },

    /**
     * Records the trace of the attempt that executes the run and answers the `traceparent` of
     * the attempt before it (null for the first), which the new attempt's span links to.
     */
    async recordTrace(
      id: string,
      trace: { traceId: string; traceParent: string },
    ): Promise<string | null> {
      const before = await db
        .selectFrom('runs')
        .select('trace_parent')
        .where('id', '=', id)
        .executeTakeFirst()
      await db
        .updateTable('runs')
        .set({ trace_id: trace.traceId, trace_parent: trace.traceParent })
        .where('id', '=', id)
        .execute()
      return before?.trace_parent ?? null
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

    /** Runs queued that never ran, oldest first (a single process queues them again at start). */
    async neverStarted(): Promise<{ id: string; kind: 'plan' | 'swarm' }[]> {
      const rows = await db
        .selectFrom('runs')
        .select(['id', 'kind'])
        .where('status', '=', 'queued')
        .where('attempt', '=', 0)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map((row) => ({ id: row.id, kind: row.kind as 'plan' | 'swarm' }))
    },

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
      const insert = (executor: Kysely<Database> | Transaction<Database>) =>
        executor
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
      const { executedBy } = options
      if (!executedBy) {
        await insert(db)
        return
      }
      await db.transaction().execute(async (trx) => {
        await assertHeld(trx, runId, executedBy)
        await insert(trx)
      })
    },

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

export type RunsRepository = ReturnType<typeof createRunsRepository>
