import { type Kysely, sql } from 'kysely'

/** The first schema: agents and their history, swarms, plans, runs, ledger, bus, memory. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const now = sql`now()`
  await db.schema
    .createTable('agents')
    .addColumn('wallet', 'text', (column) => column.primaryKey())
    .addColumn('id', 'text', (column) => column.notNull())
    .addColumn('creator', 'text', (column) => column.notNull())
    .addColumn('record', 'jsonb', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  // An id names one live agent; a revoked agent's id may be taken again.
  await sql`create unique index agents_live_id on agents (id) where revoked_at is null`.execute(db)

  await db.schema
    .createTable('agent_history')
    .addColumn('id', 'serial', (column) => column.primaryKey())
    .addColumn('wallet', 'text', (column) => column.notNull())
    .addColumn('change', 'text', (column) => column.notNull())
    .addColumn('record', 'jsonb', (column) => column.notNull())
    .addColumn('signer', 'text', (column) => column.notNull())
    .addColumn('at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('agent_history_wallet').on('agent_history').column('wallet').execute()

  await db.schema
    .createTable('registration_nonces')
    .addColumn('nonce', 'text', (column) => column.primaryKey())
    .addColumn('signer', 'text', (column) => column.notNull())
    .addColumn('used_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()

  await db.schema
    .createTable('swarms')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('record', 'jsonb', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()

  await db.schema
    .createTable('plans')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('swarm_id', 'text')
    .addColumn('plan', 'jsonb', (column) => column.notNull())
    .addColumn('inputs', 'jsonb', (column) => column.notNull())
    .addColumn('budget', 'jsonb')
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('output', 'jsonb')
    .addColumn('error', 'jsonb')
    .addColumn('usage', 'jsonb', (column) => column.notNull())
    .addColumn('usage_by_wallet', 'jsonb', (column) => column.notNull())
    .addColumn('state', 'jsonb')
    .addColumn('question', 'text')
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('runs_status').on('runs').columns(['status', 'created_at']).execute()

  await db.schema
    .createTable('run_steps')
    .addColumn('run_id', 'text', (column) => column.notNull().references('runs.id'))
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('op', 'text', (column) => column.notNull())
    .addColumn('save_as', 'text')
    .addColumn('value', 'jsonb')
    .addColumn('usage', 'jsonb', (column) => column.notNull())
    .addColumn('wallet', 'text')
    .addColumn('duration_ms', 'double precision', (column) => column.notNull())
    .addColumn('sequence', 'integer', (column) => column.notNull())
    .addColumn('finished_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('run_steps_pk', ['run_id', 'sequence'])
    .execute()

  await db.schema
    .createTable('run_events')
    .addColumn('run_id', 'text', (column) => column.notNull().references('runs.id'))
    .addColumn('sequence', 'integer', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('event', 'jsonb', (column) => column.notNull())
    .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'sequence'])
    .execute()

  await db.schema
    .createTable('ledger')
    .addColumn('id', 'serial', (column) => column.primaryKey())
    .addColumn('run_id', 'text')
    .addColumn('wallet', 'text', (column) => column.notNull())
    .addColumn('calls', 'double precision', (column) => column.notNull())
    .addColumn('tokens', 'double precision', (column) => column.notNull())
    .addColumn('cost_usd', 'double precision', (column) => column.notNull())
    .addColumn('at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('ledger_at').on('ledger').column('at').execute()

  await db.schema
    .createTable('messages')
    .addColumn('position', 'serial', (column) => column.primaryKey())
    .addColumn('id', 'text', (column) => column.notNull().unique())
    .addColumn('correlation_id', 'text', (column) => column.notNull())
    .addColumn('envelope', 'jsonb', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()
  await db.schema
    .createIndex('messages_correlation')
    .on('messages')
    .column('correlation_id')
    .execute()

  await db.schema
    .createTable('escalations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('correlation_id', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('record', 'jsonb', (column) => column.notNull())
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()

  await db.schema
    .createTable('memory_entries')
    .addColumn('id', 'serial', (column) => column.primaryKey())
    .addColumn('scope', 'text', (column) => column.notNull())
    .addColumn('entry', 'jsonb', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('memory_entries_scope').on('memory_entries').column('scope').execute()
}
