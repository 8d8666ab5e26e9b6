import { type Kysely, sql } from 'kysely'
import { up as keepStartingMessages } from './0022-a2a-tasks-started-by'

/**
 * The A2A task table, in the shape `@a2a-js/sdk`'s `DatabaseTaskStore` reads and writes
 * (its `a2a-db` schema for PostgreSQL, under the name `a2a_tasks`), so tasks served over
 * A2A survive a restart. Ids are `text` rather than the SDK's `varchar(36)`: a client may
 * choose its own `contextId`, and it need not be a UUID. Idempotent (`if not exists`): a
 * database that ran 0003+ before this file was listed runs it late (unordered migrations).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Byte order, as the SDK's schema asks, so its (timestamp, id) page cursors sort the same
  // way on every database.
  const key = sql`text collate "C"`
  await db.schema
    .createTable('a2a_tasks')
    .ifNotExists()
    .addColumn('tenant', key, (column) => column.notNull())
    .addColumn('owner', key, (column) => column.notNull())
    .addColumn('id', key, (column) => column.notNull())
    .addColumn('context_id', key, (column) => column.notNull())
    .addColumn('status_last_updated', 'bigint', (column) => column.notNull())
    .addColumn('status_state', key)
    .addColumn('status', 'text')
    .addColumn('artifacts', 'text')
    .addColumn('history', 'text')
    .addColumn('metadata', 'text')
    .addColumn('protocol_version', 'text')
    .addPrimaryKeyConstraint('a2a_tasks_pkey', ['tenant', 'owner', 'id'])
    .execute()
  await db.schema
    .createIndex('a2a_tasks_scope_updated_idx')
    .ifNotExists()
    .on('a2a_tasks')
    .columns(['tenant', 'owner', 'status_last_updated', 'id'])
    .execute()
  await db.schema
    .createIndex('a2a_tasks_scope_context_updated_idx')
    .ifNotExists()
    .on('a2a_tasks')
    .columns(['tenant', 'owner', 'context_id', 'status_last_updated', 'id'])
    .execute()
  // Baton's own look-up: which conversation a context continues, across hosted agents.
  await db.schema
    .createIndex('a2a_tasks_context_idx')
    .ifNotExists()
    .on('a2a_tasks')
    .column('context_id')
    .execute()
  // Run late, after 0022 found no table to add its column to.
  await keepStartingMessages(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('a2a_tasks').execute()
}
