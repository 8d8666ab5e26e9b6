import { type Kysely, sql } from 'kysely'

/**
 * A swarm run's journal: each member call that ran to its end, by its key (`r1/lead#2`), with
 * the hash of its prompt, its answer, its usage and the attempt that made it. A swarm run
 * continued after its process died replays these calls instead of making them again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('swarm_calls')
    .addColumn('run_id', 'text', (column) => column.notNull().references('runs.id'))
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('prompt_hash', 'text', (column) => column.notNull())
    .addColumn('text', 'text', (column) => column.notNull())
    .addColumn('usage', 'jsonb', (column) => column.notNull())
    .addColumn('attempt', 'integer', (column) => column.notNull())
    .addColumn('at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('swarm_calls_pk', ['run_id', 'key'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('swarm_calls').execute()
}
