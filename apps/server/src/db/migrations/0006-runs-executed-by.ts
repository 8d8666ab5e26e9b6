import type { Kysely } from 'kysely'

/**
 * Which process executed a run (`BATON_WORKER_NAME`): set when a process takes the run, and
 * checked by every commit of that process, so a process whose run was taken over cannot
 * commit to it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('executed_by', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('executed_by').execute()
}
