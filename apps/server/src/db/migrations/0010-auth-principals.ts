import { type Kysely, sql } from 'kysely'

/**
 * Principals and ownership: API keys (stored as sha256 digests, never the key), the owner
 * of each run and bus conversation (the principal that started it), and the trust tier an
 * admin granted an agent (a registration's own tier is effective only up to it). Runs
 * stored before this migration belong to `anonymous`, as everything did on an open server.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull().unique())
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await db.schema
    .alterTable('runs')
    .addColumn('owner', 'text', (column) => column.notNull().defaultTo('anonymous'))
    .execute()
  await db.schema
    .createIndex('runs_owner_created_idx')
    .on('runs')
    .columns(['owner', 'created_at'])
    .execute()
  await db.schema
    .createTable('conversation_owners')
    .addColumn('correlation_id', 'text', (column) => column.primaryKey())
    .addColumn('owner', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.alterTable('agents').addColumn('granted_trust_tier', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('granted_trust_tier').execute()
  await db.schema.dropTable('conversation_owners').execute()
  await db.schema.dropIndex('runs_owner_created_idx').execute()
  await db.schema.alterTable('runs').dropColumn('owner').execute()
  await db.schema.dropTable('api_keys').execute()
}
