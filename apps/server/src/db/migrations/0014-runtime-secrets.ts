import { type Kysely, sql } from 'kysely'

/**
 * Secrets the runtime makes for itself when the operator gave none: on PostgreSQL the
 * development key that signs run receipts lives here (a server with `DATABASE_URL` keeps
 * nothing on local disk), made once by the first process and read by every other.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runtime_secrets')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('runtime_secrets').execute()
}
