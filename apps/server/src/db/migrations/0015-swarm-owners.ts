import type { Kysely } from 'kysely'

/**
 * Each swarm's owner: the principal that created it (`admin`, `key:<id>`, `anonymous`), who
 * (with admins) may change or delete it. Swarms stored before this migration, the seeded
 * demo's among them, belong to `anonymous`, as everything did on an open server.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('swarms')
    .addColumn('owner', 'text', (column) => column.notNull().defaultTo('anonymous'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('swarms').dropColumn('owner').execute()
}
