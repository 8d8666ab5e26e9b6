import { type RawBuilder, sql } from 'kysely'
import type { StoredUsage } from './database'
import type { LedgerEntry } from './ledger-repository'
import type { RunStatus, StoredStep } from './stored-run'

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
// ids it held, so a process that lost its run is told, and wrote nothing of it.
// Parameters in a VALUES list have no column to take their type from: each is cast.

const json = (value: unknown) => sql`${JSON.stringify(value ?? null)}::jsonb`
const text = (value: string | null | undefined) => sql`${value ?? null}::text`
const fence = sql`(v.executed_by is null or (runs.status = 'running' and runs.executed_by = v.executed_by))`

function valuesOf(rows: RawBuilder<unknown>[][]): RawBuilder<unknown> {
  return sql.join(rows.map((row) => sql`(${sql.join(row)})`))
}

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
    clauses.push(sql`locked as materialized (
      select runs.id from runs
      join (values ${valuesOf(locks.map((write) => [text(write.runId), text(write.executedBy)]))})
        as v (id, executed_by) on runs.id = v.id
      where ${fence}
      for update of runs
    )`)
  }
  if (updates.length > 0) {
    const rows = updates.map(({ runId, executedBy, update }) => [
      text(runId),
      text(executedBy),
      json(update!.state),
      json(update!.usage),
      json(update!.usageByWallet),
      sql`${update!.end !== undefined}::boolean`,
      text(update!.end?.status),
      json(update!.end?.output),
      json(update!.end?.error),
      text(update!.end?.question),
    ])
    clauses.push(sql`updated as materialized (
      update runs set state = v.state, usage = v.usage, usage_by_wallet = v.usage_by_wallet,
        updated_at = ${now},
        status = case when v.ends then v.status else runs.status end,
        output = case when v.ends then v.output else runs.output end,
        error = case when v.ends then v.error else runs.error end,
        question = case when v.ends then v.question else runs.question end
      from (values ${valuesOf(rows)})
        as v (id, executed_by, state, usage, usage_by_wallet, ends, status, output, error, question)
      where runs.id = v.id and ${fence}
      returning runs.id
    )`)
  }
  const held = [locks.length > 0 ? sql`select id from locked` : undefined]
    .concat(updates.length > 0 ? sql`select id from updated` : undefined)
    .filter((part) => part !== undefined)
  clauses.push(sql`held as (${sql.join(held, sql` union all `)})`)
  const steps = writes.flatMap(({ runId, steps }) => steps.map((step) => stepRow(runId, step)))
  if (steps.length > 0) {
    clauses.push(sql`written_steps as (
      insert into run_steps (run_id, path, op, save_as, value, usage, wallet, duration_ms, sequence)
      select row.* from (values ${valuesOf(steps)})
        as row (run_id, path, op, save_as, value, usage, wallet, duration_ms, sequence)
      where row.run_id in (select id from held)
      on conflict (run_id, sequence) do nothing
    )`)
  }
  const events = writes.flatMap(({ runId, events }) =>
    events.map((event) => eventRow(runId, event)),
  )
  if (events.length > 0) {
    clauses.push(sql`written_events as (
      insert into run_events (run_id, sequence, type, event)
      select row.* from (values ${valuesOf(events)}) as row (run_id, sequence, type, event)
      where row.run_id in (select id from held)
      on conflict (run_id, sequence) do nothing
    )`)
  }
  const ledger = writes.flatMap(({ runId, ledger }) =>
    ledger.filter(spentSomething).map((entry) => ledgerRow(runId, entry)),
  )
  if (ledger.length > 0) {
    clauses.push(sql`written_ledger as (
      insert into ledger (run_id, wallet, calls, tokens, cost_usd, step_path, attempt, correlation_id, message_id)
      select row.* from (values ${valuesOf(ledger)})
        as row (run_id, wallet, calls, tokens, cost_usd, step_path, attempt, correlation_id, message_id)
      where row.run_id in (select id from held)
    )`)
  }
  return sql<{ id: string }>`with ${sql.join(clauses)} select id from held`
}

const spentSomething = (entry: LedgerEntry) =>
  entry.usage.calls > 0 || entry.usage.tokens > 0 || entry.usage.costUsd > 0

function stepRow(runId: string, step: StoredStep): RawBuilder<unknown>[] {
  return [
    text(runId),
    text(step.path),
    text(step.op),
    text(step.saveAs),
    json(step.value),
    json(step.usage),
    text(step.wallet),
    sql`${step.durationMs}::double precision`,
    sql`${step.sequence}::integer`,
  ]
}

function eventRow(runId: string, event: Record<string, unknown>): RawBuilder<unknown>[] {
  return [
    text(runId),
    sql`${event.sequence as number}::integer`,
    text(event.type as string),
    json(event),
  ]
}

function ledgerRow(runId: string, entry: LedgerEntry): RawBuilder<unknown>[] {
  return [
    text(runId),
    text(entry.wallet),
    sql`${entry.usage.calls}::double precision`,
    sql`${entry.usage.tokens}::double precision`,
    sql`${entry.usage.costUsd}::double precision`,
    text(entry.stepPath),
    sql`${entry.attempt ?? null}::integer`,
    text(entry.correlationId),
    text(entry.messageId),
  ]
}
