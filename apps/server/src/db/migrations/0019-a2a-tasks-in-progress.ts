import { type Kysely, sql } from 'kysely'

/**
 * The A2A tasks stored in progress (submitted or working), by when they were last updated:
 * what a server looks through for tasks whose process is gone (at its start when it is
 * alone, once a lease among many). A partial index: it holds those few rows only, not the
 * tasks that ended, so the look costs nothing that grows with the history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // 0002 may run after this one (unordered migrations): the look then reads the table itself,
  // which is as right and, on a table that young, as quick.
  const tables = await db.introspection.getTables()
  if (!tables.some((table) => table.name === 'a2a_tasks')) return
  await db.schema
    .createIndex('a2a_tasks_in_progress_idx')
    .ifNotExists()
    .on('a2a_tasks')
    .column('status_last_updated')
    .where(sql.ref('status_state'), 'in', ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('a2a_tasks_in_progress_idx').execute()
}
