import type { Kysely } from 'kysely'

/**
 * Whether the bus sent a stored message. `POST /api/v1/messages` stores a message before the
 * bus takes it (`false`), and the bus's report of it marks it sent. A process that dies
 * between the two leaves it `false`: one process's loop guard, learning again what it knew,
 * does not count it as sent, so a retry with its `Idempotency-Key` sends it. Rows from before
 * are taken as sent, as they were.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('sent', 'boolean', (column) => column.notNull().defaultTo(true))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('sent').execute()
}
