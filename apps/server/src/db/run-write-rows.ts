import { type RawBuilder, sql } from 'kysely'
import type { LedgerEntry } from './ledger-repository'
import type { StoredStep } from './stored-run'

// Rows written inside one statement with the run's own update (see run-commits-repository):
// each list is a data-modifying CTE that inserts only when `held` (the run's row, updated or
// locked by the same statement) is there, so a process that lost its run writes nothing.
// Parameters in a VALUES list have no column to take their type from: each is cast.

const none = sql``

function valuesOf(rows: RawBuilder<unknown>[][]): RawBuilder<unknown> {
  return sql.join(rows.map((row) => sql`(${sql.join(row)})`))
}

/** `, steps as (insert into run_steps …)` for `steps` (nothing when there are none). */
export function stepRows(runId: string, steps: StoredStep[]): RawBuilder<unknown> {
  if (steps.length === 0) return none
  const rows = steps.map((step) => [
    sql`${runId}::text`,
    sql`${step.path}::text`,
    sql`${step.op}::text`,
    sql`${step.saveAs}::text`,
    sql`${JSON.stringify(step.value ?? null)}::jsonb`,
    sql`${JSON.stringify(step.usage)}::jsonb`,
    sql`${step.wallet}::text`,
    sql`${step.durationMs}::double precision`,
    sql`${step.sequence}::integer`,
  ])
  return sql`, written_steps as (
    insert into run_steps (run_id, path, op, save_as, value, usage, wallet, duration_ms, sequence)
    select row.* from (values ${valuesOf(rows)})
      as row (run_id, path, op, save_as, value, usage, wallet, duration_ms, sequence)
    where exists (select 1 from held)
    on conflict (run_id, sequence) do nothing
  )`
}

/** `, events as (insert into run_events …)` for `events` (nothing when there are none). */
export function eventRows(runId: string, events: Record<string, unknown>[]): RawBuilder<unknown> {
  if (events.length === 0) return none
  const rows = events.map((event) => [
    sql`${runId}::text`,
    sql`${event.sequence as number}::integer`,
    sql`${event.type as string}::text`,
    sql`${JSON.stringify(event)}::jsonb`,
  ])
  return sql`, written_events as (
    insert into run_events (run_id, sequence, type, event)
    select row.* from (values ${valuesOf(rows)}) as row (run_id, sequence, type, event)
    where exists (select 1 from held)
    on conflict (run_id, sequence) do nothing
  )`
}

/** `, ledger as (insert into ledger …)` for the entries that spent something. */
export function ledgerRows(runId: string, entries: LedgerEntry[]): RawBuilder<unknown> {
  const spent = entries.filter(
    (entry) => entry.usage.calls > 0 || entry.usage.tokens > 0 || entry.usage.costUsd > 0,
  )
  if (spent.length === 0) return none
  const rows = spent.map((entry) => [
    sql`${runId}::text`,
    sql`${entry.wallet}::text`,
    sql`${entry.usage.calls}::double precision`,
    sql`${entry.usage.tokens}::double precision`,
    sql`${entry.usage.costUsd}::double precision`,
    sql`${entry.stepPath ?? null}::text`,
    sql`${entry.attempt ?? null}::integer`,
    sql`${entry.correlationId ?? null}::text`,
    sql`${entry.messageId ?? null}::text`,
  ])
  return sql`, written_ledger as (
    insert into ledger (run_id, wallet, calls, tokens, cost_usd, step_path, attempt, correlation_id, message_id)
    select row.* from (values ${valuesOf(rows)})
      as row (run_id, wallet, calls, tokens, cost_usd, step_path, attempt, correlation_id, message_id)
    where exists (select 1 from held)
  )`
}

/** `and status = 'running' and executed_by = …` when the write is fenced by its executor. */
export function heldBy(executedBy: string | undefined): RawBuilder<unknown> {
  return executedBy ? sql`and status = 'running' and executed_by = ${executedBy}` : none
}
