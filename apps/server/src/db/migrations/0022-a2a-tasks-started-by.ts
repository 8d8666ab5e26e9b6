import { type Kysely, sql } from 'kysely'

/**
 * The `messageId` of the message that started each A2A task, so a `SendMessage` sent again
 * with it (a client's retry) is answered with that task rather than running the agent a second
 * time (A2A 1.0, §3.3.1: "Agents may utilize the messageId to detect duplicate messages"), on
 * any process and after a restart. Tasks stored before have none. Idempotent (`if not
 * exists`): 0002, which may run after this one (unordered migrations), runs it too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const tables = await db.introspection.getTables()
  if (!tables.some((table) => table.name === 'a2a_tasks')) return
  await sql`alter table a2a_tasks add column if not exists started_by text collate "C"`.execute(db)
  await db.schema
    .createIndex('a2a_tasks_scope_started_by_idx')
    .ifNotExists()
    .on('a2a_tasks')
    .columns(['tenant', 'owner', 'started_by'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('a2a_tasks_scope_started_by_idx').ifExists().execute()
  await db.schema.alterTable('a2a_tasks').dropColumn('started_by').execute()
}
