import type { Kysely } from 'kysely'
import type { Database, StoredUsage } from './database'
import type { GroupCommit, WriteChannel } from './group-commit'
import { jsonTable } from './json-rows'
import { runClaims, runClaimsStatement } from './run-claims'
import { type RunRow, type RunStatus, type StoredRun, toRun } from './stored-run'

const zero: StoredUsage = { calls: 0, tokens: 0, costUsd: 0 }

/** A new run's row: its JSON columns as values (see `jsonRows`). */
type NewRun = {
  id: string
  kind: 'plan' | 'swarm'
  swarm_id: string | null
  plan: Record<string, unknown>
  inputs: Record<string, unknown>
  budget: Record<string, unknown> | null
  status: 'queued'
  usage: StoredUsage
  usage_by_wallet: Record<string, StoredUsage>
  owner: string
}

const RUNS = jsonTable<NewRun>('runs', {
  id: 'text',
  kind: 'text',
  swarm_id: 'text',
  plan: 'jsonb',
  inputs: 'jsonb',
  budget: 'jsonb',
  status: 'text',
  usage: 'jsonb',
  usage_by_wallet: 'jsonb',
  owner: 'text',
})

/** New runs accepted while the writer's previous turn was at the database: one insert. */
const runInserts: WriteChannel<NewRun> = {
  name: 'run inserts',
  statement: (_db, rows) => RUNS.insert(rows),
  async store(executor, rows) {
    await RUNS.insert(rows).execute(executor)
  },
}

/**
 * The runs' own rows: a run stored, found, listed, set to a status, claimed by the process
 * that executes it, and the trace of its attempt.
 *
 * @example
 * const records = createRunRecordsRepository(db)
 * await records.create({ id, kind: 'plan', plan, inputs })
 */
export function createRunRecordsRepository(db: Kysely<Database>, writer?: GroupCommit) {
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
      // Through the process's group commit when it has one: the runs accepted together are one
      // insert, and each request is answered once its run is committed.
      const row: NewRun = {
        id: run.id,
        kind: run.kind,
        swarm_id: run.swarmId ?? null,
        plan: run.plan,
        inputs: run.inputs,
        budget: run.budget ?? null,
        status: 'queued',
        usage: zero,
        usage_by_wallet: {},
        owner: run.owner ?? 'anonymous',
      }
      if (writer) return writer.write(runInserts, row)
      await RUNS.insert([row]).execute(db)
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

    /**
     * Sets the run's status to `to` if it is `from` (and its attempt is `attempt`, if given), in
     * one statement; answers whether it was (of two requests that continue a paused run at
     * once, one does, the other is told).
     */
    async changeStatus(
      id: string,
      change: { from: RunStatus; to: RunStatus; attempt?: number },
    ): Promise<boolean> {
      let query = db
        .updateTable('runs')
        .set({ status: change.to, updated_at: new Date() })
        .where('id', '=', id)
        .where('status', '=', change.from)
      // And in the same execution (each claim counts one more).
      if (change.attempt !== undefined) query = query.where('attempt', '=', change.attempt)
      const result = await query.executeTakeFirst()
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
     * `find` and `claim` in one statement, for an executor given a job: the run as it was
     * before (its status says whether it was queued or taken over), and the attempt this
     * execution is, or 0 when the run was not there to execute (gone, paused, interrupted,
     * final) and was left as it is.
     */
    async claimToExecute(
      id: string,
      executedBy: string,
    ): Promise<{ run: StoredRun; attempt: number } | undefined> {
      // Through the process's group commit when it has one: the claims of the jobs that start
      // together are one clause of the writer's next turn, committed with the runs' writes.
      if (writer) return writer.write(runClaims, { runId: id, executedBy })
      const { rows } = await runClaimsStatement([{ runId: id, executedBy }])!.execute(db)
      return runClaims.answers!(rows, [{ runId: id, executedBy }])[0]
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
  }
}
