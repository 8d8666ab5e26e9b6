import type { Kysely } from 'kysely'

/**
 * An agent's memory is read newest first, a few entries at a time (`where scope = $1 order by
 * id desc limit $2`). With an index on `scope` alone, each read sorted every entry the scope
 * ever had, so a busy agent's reads grew with its history; on `(scope, id)` the read walks the
 * index backwards and stops at the limit. The old index is a prefix of the new one: dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('memory_entries_scope_id')
    .on('memory_entries')
    .columns(['scope', 'id'])
    .execute()
  await db.schema.dropIndex('memory_entries_scope').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('memory_entries_scope').on('memory_entries').column('scope').execute()
  await db.schema.dropIndex('memory_entries_scope_id').execute()
}
