import type { Kysely } from 'kysely'

/**
 * Ledger rows are written as the spend happens, so a step that ran twice (its process died
 * mid-call and another took the run over) shows both attempts: each row says which step
 * spent it (`step_path`) and in which execution of the run (`attempt`). A run counts its
 * executions (`runs.attempt`: 1 for the first, one more on each takeover, resume or answer).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('ledger')
    .addColumn('step_path', 'text')
    .addColumn('attempt', 'integer')
    .execute()
  await db.schema
    .alterTable('runs')
    .addColumn('attempt', 'integer', (column) => column.notNull().defaultTo(0))
    .execute()
  // A run's rows are read on each takeover (what the interrupted attempt spent) and per run.
  await db.schema.createIndex('ledger_run').on('ledger').columns(['run_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_run').execute()
  await db.schema.alterTable('runs').dropColumn('attempt').execute()
  await db.schema.alterTable('ledger').dropColumn('attempt').dropColumn('step_path').execute()
}
