import { DatabaseTaskStore } from '@a2a-js/sdk/server/database'
import type { Kysely } from 'kysely'

/** The table migration `0002-a2a-tasks` made for the SDK's task store. */
export const A2A_TASK_TABLE = 'a2a_tasks'

/**
 * The SDK's `DatabaseTaskStore` on the server's own Kysely instance (PGlite or
 * PostgreSQL), so tasks served over A2A outlive the process.
 *
 * @example
 * const store = createA2ATaskStore(app.baton.db)
 * await store.load(taskId, context)
 */
export function createA2ATaskStore(db: Kysely<unknown>): DatabaseTaskStore {
  return new DatabaseTaskStore(db, { tableName: A2A_TASK_TABLE })
}
