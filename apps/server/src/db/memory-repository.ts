import type { MemoryEntry, MemoryStore } from '@baton/core'
import type { Kysely } from 'kysely'
import type { Database } from './database'
import type { GroupCommit, WriteChannel, WriteExecutor } from './group-commit'

type MemoryAppend = { scope: string; entries: MemoryEntry[] }

/** Memory appends of a turn of the group commit, in one insert. */
const memoryAppends: WriteChannel<MemoryAppend> = {
  name: 'memory appends',
  async store(executor, appends) {
    await insertAppends(executor, appends).execute()
  },
  statement: (db, appends) => insertAppends(db, appends),
}

function insertAppends(executor: WriteExecutor, appends: MemoryAppend[]) {
  return executor
    .insertInto('memory_entries')
    .values(
      appends.flatMap(({ scope, entries }) =>
        entries.map((entry) => ({ scope, entry: JSON.stringify(entry) })),
      ),
    )
}

/**
 * A core `MemoryStore` in the database: entries per scope, read newest-last. With the
 * process's group commit, appends go through it (resolved once committed).
 *
 * @example
 * await runAgent(agent, input, { budget, memory: createDatabaseMemoryStore(db) })
 */
export function createDatabaseMemoryStore(
  db: Kysely<Database>,
  options: { writer?: GroupCommit } = {},
): MemoryStore {
  const { writer } = options
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
      if (writer) return writer.write(memoryAppends, { scope, entries })
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
