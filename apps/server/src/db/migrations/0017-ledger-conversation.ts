import type { Kysely } from 'kysely'

/**
 * A hosted agent's spend on a bus message is kept with the conversation and the message it
 * answered (`correlation_id`, `message_id`), so a conversation can show what each agent of a
 * delegated answer spent (its own calls and its sub-agents', by wallet).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('ledger')
    .addColumn('correlation_id', 'text')
    .addColumn('message_id', 'text')
    .execute()
  await db.schema
    .createIndex('ledger_correlation')
    .on('ledger')
    .columns(['correlation_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_correlation').execute()
  await db.schema
    .alterTable('ledger')
    .dropColumn('message_id')
    .dropColumn('correlation_id')
    .execute()
}
