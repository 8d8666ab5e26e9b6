import type { MemoryEntry, MemoryStore } from '@baton/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from './database'
import type { GroupCommit, WriteChannel, WriteExecutor } from './group-commit'
import { jsonRows } from './json-rows'

/** A memory entry with the id the database gave it (ids grow in the order rows are inserted). */
export type StoredMemoryEntry = { id: number; entry: MemoryEntry }

/**
 * The server's memory store: core's `MemoryStore`, and the same reads and appends with the
 * entries' ids, so a copy kept elsewhere can put entries in the database's order.
 */
export type DatabaseMemoryStore = MemoryStore & {
  /** The newest `limit` entries of `scope`, oldest first, with their ids. */
  readStored(scope: string, options?: { limit?: number }): Promise<StoredMemoryEntry[]>
  /** Appends `entries` to `scope`; resolves, once committed, with them and their ids. */
  appendStored(scope: string, entries: MemoryEntry[]): Promise<StoredMemoryEntry[]>
}

type MemoryAppend = { scope: string; entries: MemoryEntry[] }
type InsertedRow = { id: number | string }

/**
 * Memory appends of a turn of the group commit, in one insert: each append's caller gets the
 * ids its entries were given (the rows are inserted in the order of the turn's entries, so
 * their ids, in ascending order, are the entries' in turn).
 */
const memoryAppends: WriteChannel<MemoryAppend, number[]> = {
  name: 'memory appends',
  store: insertWithIds,
  statement: (_db, appends) => insertAppends(appends),
  answers: (rows, appends) => idsOf(rows as InsertedRow[], appends),
}

// The final select has no parenthesis: beside other answering channels' in one statement.
function insertAppends(appends: MemoryAppend[]) {
  const rows = appends.flatMap(({ scope, entries }) => entries.map((entry) => ({ scope, entry })))
  return sql<InsertedRow>`with memory_inserted as (
      insert into memory_entries (scope, entry)
      select row.scope, row.entry from ${jsonRows(rows, 'row', 'scope text, entry jsonb')}
      returning id
    )
    select id from memory_inserted`
}

function idsOf(rows: InsertedRow[], appends: MemoryAppend[]): number[][] {
  const ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b)
  let next = 0
  return appends.map(({ entries }) => {
    const own = ids.slice(next, next + entries.length)
    next += entries.length
    return own
  })
}

async function insertWithIds(executor: WriteExecutor, appends: MemoryAppend[]) {
  const { rows } = await insertAppends(appends).execute(executor)
  return idsOf(rows, appends)
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
): DatabaseMemoryStore {
  const { writer } = options
  const readStored: DatabaseMemoryStore['readStored'] = async (scope, options = {}) => {
    const rows = await db
      .selectFrom('memory_entries')
      .select(['id', 'entry'])
      .where('scope', '=', scope)
      .orderBy('id', 'desc')
      .limit(options.limit ?? 1000)
      .execute()
    return rows
      .reverse()
      .map((row) => ({ id: Number(row.id), entry: row.entry as unknown as MemoryEntry }))
  }
  const appendStored: DatabaseMemoryStore['appendStored'] = async (scope, entries) => {
    if (entries.length === 0) return []
    const ids = writer
      ? await writer.write(memoryAppends, { scope, entries })
      : (await insertWithIds(db, [{ scope, entries }]))[0]!
    return entries.map((entry, index) => ({ id: ids[index]!, entry }))
  }
  return {
    readStored,
    appendStored,
    async read(scope, options) {
      return (await readStored(scope, options)).map((stored) => stored.entry)
    },
    async append(scope, entries) {
      await appendStored(scope, entries)
    },
    async clear(scope) {
      await db.deleteFrom('memory_entries').where('scope', '=', scope).execute()
    },
  }
}
