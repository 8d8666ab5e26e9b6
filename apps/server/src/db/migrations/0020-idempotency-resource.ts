import type { Kysely } from 'kysely'

/**
 * The id of what the first request with an `Idempotency-Key` creates (the run, the message),
 * known before it is created: when that request's process dies between storing it and
 * storing its answer, a retry finds it by this id and is answered with it, not given a second.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('resource_id', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('resource_id').execute()
}
