import { type Kysely, sql } from 'kysely'

/**
 * The conclave: shared state per root run. A deleted key keeps its row (`deleted`) so its
 * version never goes back; `expires_at` is set when the run ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conclave_entries')
    .addColumn('space', 'text', (column) => column.notNull())
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('value', 'jsonb')
    .addColumn('written_by', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('deleted', 'boolean', (column) => column.notNull().defaultTo(false))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addPrimaryKeyConstraint('conclave_entries_pkey', ['space', 'key'])
    .execute()
  await sql`create index conclave_entries_expires on conclave_entries (expires_at) where expires_at is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('conclave_entries').execute()
}
