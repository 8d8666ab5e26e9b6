import {
  type ConclaveEntry,
  type ConclaveLimits,
  type ConclaveStore,
  checkConclaveRoom,
  checkConclaveWrite,
  checkIfVersion,
  DEFAULT_CONCLAVE_LIMITS,
} from '@baton/mal'
import { type Kysely, sql } from 'kysely'
import { conclaveExpiries, expireConclaveNow } from './conclave-expiries'
import type { Database } from './database'
import type { GroupCommit } from './group-commit'

type Row = {
  value: unknown
  written_by: string
  version: number
  deleted: boolean
  updated_at: Date | string
  expired: boolean
}

const toEntry = (row: Row): ConclaveEntry => ({
  value: row.value ?? null,
  writtenBy: row.written_by,
  version: Number(row.version),
  updatedAt: new Date(row.updated_at).toISOString(),
})

/** The version a compare-and-set is checked against: 0 for a deleted or expired entry. */
const liveVersionOf = (row: Row | undefined): number =>
  row && !row.deleted && !row.expired ? Number(row.version) : 0

/**
 * The conclave in the database (migration 0005). Every change of a keyspace takes that
 * keyspace's transaction-scoped advisory lock first, so compare-and-set and the key bound
 * hold across every process that shares the database.
 *
 * @example
 * const conclave = createDatabaseConclave(db, {}, writer)
 * await conclave.write(runId, 'draft', 'v1', { writtenBy: wallet, ifVersion: 0 })
 */
export function createDatabaseConclave(
  db: Kysely<Database>,
  limits: ConclaveLimits = {},
  /** The process's group commit: a run's expiry at its end joins the writer's next turn. */
  writer?: GroupCommit,
): ConclaveStore {
  const bounds = { ...DEFAULT_CONCLAVE_LIMITS, ...limits }
  const live = sql`not deleted and (expires_at is null or expires_at > now())`
  const lock = (executor: Kysely<Database>, space: string) =>
    sql`select pg_advisory_xact_lock(hashtextextended(${space}, 0))`.execute(executor)
  const current = async (executor: Kysely<Database>, space: string, key: string) => {
    const { rows } = await sql<Row>`
      select value, written_by, version, deleted, updated_at,
        (expires_at is not null and expires_at <= now()) as expired
      from conclave_entries where space = ${space} and key = ${key}`.execute(executor)
    return rows[0]
  }
  return {
    async read(space, key) {
      const { rows } = await sql<Row>`
        select value, written_by, version, deleted, updated_at, false as expired
        from conclave_entries where space = ${space} and key = ${key} and ${live}`.execute(db)
      return rows[0] ? toEntry(rows[0]) : null
    },
    async write(space, key, value, options) {
      const json = checkConclaveWrite(key, value, bounds)
      return db.transaction().execute(async (trx) => {
        await lock(trx, space)
        const row = await current(trx, space, key)
        const liveVersion = liveVersionOf(row)
        checkIfVersion(key, options.ifVersion, liveVersion)
        if (liveVersion === 0) {
          const { rows } = await sql<{ count: string }>`
            select count(*) as count from conclave_entries where space = ${space} and ${live}`.execute(
            trx,
          )
          checkConclaveRoom(key, Number(rows[0]?.count ?? 0), bounds)
        }
        const version = (row && !row.expired ? Number(row.version) : 0) + 1
        const { rows } = await sql<Row>`
          insert into conclave_entries (space, key, value, written_by, version, deleted, updated_at, expires_at)
          values (${space}, ${key}, ${json}::jsonb, ${options.writtenBy}, ${version}, false, now(), null)
          on conflict (space, key) do update set value = excluded.value,
            written_by = excluded.written_by, version = excluded.version, deleted = false,
            updated_at = excluded.updated_at, expires_at = null
          returning value, written_by, version, deleted, updated_at, false as expired`.execute(trx)
        return toEntry(rows[0]!)
      })
    },
    async delete(space, key, options = {}) {
      return db.transaction().execute(async (trx) => {
        await lock(trx, space)
        const row = await current(trx, space, key)
        const liveVersion = liveVersionOf(row)
        checkIfVersion(key, options.ifVersion, liveVersion)
        if (liveVersion === 0) return false
        await sql`update conclave_entries set deleted = true, value = null, updated_at = now()
          where space = ${space} and key = ${key}`.execute(trx)
        return true
      })
    },
    async list(space) {
      const { rows } = await sql<{ key: string }>`
        select key from conclave_entries where space = ${space} and ${live} order by key collate "C"`.execute(
        db,
      )
      return rows.map((row) => row.key)
    },
    async expire(space, afterMs) {
      if (writer) return writer.write(conclaveExpiries, { space, afterMs })
      return expireConclaveNow(db, { space, afterMs })
    },
  }
}
