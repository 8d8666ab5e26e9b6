import { type RawBuilder, sql } from 'kysely'
import type { StoredUsage } from './database'
import { jsonRows, jsonTable } from './json-rows'
import { LEDGER, type LedgerEntry, ledgerRow, spentSomething } from './ledger-repository'
import { finalStatuses, type RunStatus, type StoredStep } from './stored-run'

/**
 * One fenced write of a run: the run's row updated (a step's commit, its end) or only locked
 * (a batch of events), and the rows that go with it, stored only if the row was held.
 */
export type RunWrite = {
  runId: string
  /** Write only while this process holds the running run (see `claim`); any run's row without. */
  executedBy?: string
  /** The run's new columns; none for a write that only locks the row (a batch of events). */
  update?: {
    state: unknown
    usage: StoredUsage
    usageByWallet: Record<string, StoredUsage>
    /** How the run ended (or paused): its status, output, error and question. */
    end?: { status: RunStatus; output: unknown; error: unknown; question: string | null }
  }
  steps: StoredStep[]
  events: Record<string, unknown>[]
  ledger: LedgerEntry[]
}

// The writes of several runs in ONE statement (one commit): every run's row is updated, or
// locked, only while its process holds it (`held`: a takeover's claim waits for the row, or,
// if it committed first, this sees another `executed_by` and takes nothing), and each step,
// event and ledger row is inserted only if its run is in `held`. The statement answers the
// ids it held, so a process that lost its run is told, and wrote nothing of it. Each kind of
// row is one parameter (`jsonRows`): the statement's text is the same whatever its rows. The
// planner takes a function's rows for 100: a run's row is found by its key (`= any (array(…))`,
// an index scan), not by a hash join over every run.

// A row of a run is inserted only when its run is held (then `tail`).
const heldOnly = (tail?: RawBuilder<unknown>) =>
  sql`where row.run_id in (select id from held)${tail ? sql` ${tail}` : sql``}`
// A step or an event is stored once (by its run and sequence), its run held.
const heldOnce = heldOnly(sql`on conflict (run_id, sequence) do nothing`)

const fence = sql`(v.executed_by is null or (runs.status = 'running' and runs.executed_by = v.executed_by))`
// An end written by no holder (a cancel of a run this process does not execute, an executor's
// last-resort failure) never replaces an end: a run that ended between that writer's read and
// its write keeps its own (a cancel does not turn `done` into `cancelled`, dropping its output).
const endsOnce = sql`(not v.ends or v.executed_by is not null or runs.status not in (${sql.join(finalStatuses)}))`

/**
 * The statement that stores `writes` (of distinct runs) at once, answering `{ id }` for each
 * run it held; undefined when a run has two writes here (they go one after another).
 *
 * @example
 * const statement = runWritesStatement([{ runId, executedBy, steps: [], events, ledger: [] }])
 * const { rows } = await statement!.execute(db)
 */
export function runWritesStatement(writes: RunWrite[]): RawBuilder<{ id: string }> | undefined {
  if (new Set(writes.map((write) => write.runId)).size < writes.length) return undefined
  const now = new Date()
  const locks = writes.filter((write) => !write.update)
  const updates = writes.filter((write) => write.update)
  const clauses: RawBuilder<unknown>[] = []
  if (locks.length > 0) {
    const rows = locks.map(({ runId, executedBy }) => ({ id: runId, executed_by: executedBy }))
    clauses.push(sql`lock_rows as materialized (
      select * from ${jsonRows(rows, 'v', 'id text, executed_by text')}
    ), locked as materialized (
      select runs.id from runs
      join lock_rows v on runs.id = v.id
      where runs.id = any (array(select id from lock_rows)) and ${fence}
      for update of runs
    )`)
  }
  if (updates.length > 0) {
    const rows = updates.map(({ runId, executedBy, update }) => ({
      id: runId,
      executed_by: executedBy,
      state: update!.state,
      usage: update!.usage,
      usage_by_wallet: update!.usageByWallet,
      ends: update!.end !== undefined,
      status: update!.end?.status,
      output: update!.end?.output,
      error: update!.end?.error,
      question: update!.end?.question,
    }))
    clauses.push(sql`update_rows as materialized (
      select * from ${jsonRows(
        rows,
        'v',
        'id text, executed_by text, state jsonb, usage jsonb, usage_by_wallet jsonb, ends boolean, status text, output jsonb, error jsonb, question text',
      )}
    ), updated as materialized (
      update runs set state = v.state, usage = v.usage, usage_by_wallet = v.usage_by_wallet,
        updated_at = ${now},
        status = case when v.ends then v.status else runs.status end,
        output = case when v.ends then v.output else runs.output end,
        error = case when v.ends then v.error else runs.error end,
        question = case when v.ends then v.question else runs.question end
      from update_rows v
      where runs.id = v.id and runs.id = any (array(select id from update_rows)) and ${fence}
        and ${endsOnce}
      returning runs.id
    )`)
  }
  const held = [locks.length > 0 ? sql`select id from locked` : undefined]
    .concat(updates.length > 0 ? sql`select id from updated` : undefined)
    .filter((part) => part !== undefined)
  clauses.push(sql`held as (${sql.join(held, sql` union all `)})`)
  const steps = writes.flatMap(({ runId, steps }) => steps.map((step) => stepRow(runId, step)))
  if (steps.length > 0) {
    clauses.push(sql`written_steps as (${STEPS.insert(steps, heldOnce)})`)
  }
  const events = writes.flatMap(({ runId, events }) =>
    events.map((event) => ({
      run_id: runId,
      sequence: event.sequence as number,
      type: event.type as string,
      event,
    })),
  )
  if (events.length > 0) {
    clauses.push(sql`written_events as (${EVENTS.insert(events, heldOnce)})`)
  }
  const ledger = writes.flatMap(({ runId, ledger }) =>
    ledger.filter(spentSomething).map((entry) => ledgerRow(entry, runId)),
  )
  if (ledger.length > 0) {
    clauses.push(sql`written_ledger as (${LEDGER.insert(ledger, heldOnly())})`)
  }
  return sql<{ id: string }>`with ${sql.join(clauses)} select id from held`
}

type StepRow = ReturnType<typeof stepRow>

const STEPS = jsonTable<StepRow>('run_steps', {
  run_id: 'text',
  path: 'text',
  op: 'text',
  save_as: 'text',
  value: 'jsonb',
  usage: 'jsonb',
  wallet: 'text',
  duration_ms: 'double precision',
  sequence: 'integer',
})

const EVENTS = jsonTable<{ run_id: string; sequence: number; type: string; event: unknown }>(
  'run_events',
  { run_id: 'text', sequence: 'integer', type: 'text', event: 'jsonb' },
)

function stepRow(runId: string, step: StoredStep) {
  return {
    run_id: runId,
    path: step.path,
    op: step.op,
    save_as: step.saveAs,
    value: step.value,
    usage: step.usage,
    wallet: step.wallet,
    duration_ms: step.durationMs,
    sequence: step.sequence,
  }
}
