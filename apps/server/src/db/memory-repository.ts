import type { MemoryEntry, MemoryStore } from '@baton/core'
import type { Kysely } from 'kysely'
import type { Database } from './database'

/**
 * A core `MemoryStore` in the database: entries per scope, read newest-last.
 *
 * @example
 * await runAgent(agent, input, { budget, memory: createDatabaseMemoryStore(db) })
 */
export function createDatabaseMemoryStore(db: Kysely<Database>): MemoryStore {
  return {
    async read(scope, options = {}) {
      const rows = await db
        .selectFrom('memory_entries')
        .select('entry')
        .where('scope', '=', scope)
        .orderBy('id', 'desc')
        .limit(options.limit ?? 1000)
        .execute()
      return rows.reverse().map((row) => row.entry as unknown as MemoryEntry)
    },
    async append(scope, entries) {
      if (entries.length === 0) return
      await db
        .insertInto('memory_entries')
        .values(entries.map((entry) => ({ scope, entry: JSON.stringify(entry) })))
        .execute()
    },
    async clear(scope) {
      await db.deleteFrom('memory_entries').where('scope', '=', scope).execute()
    },
  }
}
