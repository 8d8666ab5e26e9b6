import { type Kysely, sql } from 'kysely'
import type { Database } from './database'
import type { WriteChannel, WriteExecutor } from './group-commit'

/** A run's keyspace expired when it ends: dropped now (`afterMs` ≤ 0) or kept that much longer. */
export type ConclaveExpiry = { space: string; afterMs: number }

// The spaces are one parameter (one text whatever their number: see `jsonRows`). Every expiry
// also drops the keyspaces whose retention ran out (runs that ended long ago).
const dropNow = (spaces: string[]) =>
  sql`delete from conclave_entries
    where space = any (array(select jsonb_array_elements_text(${JSON.stringify(spaces)}::jsonb)))
      or expires_at <= now()`

/** Stores one expiry as the statements it takes (the retained kind is two). */
async function storeOne(executor: WriteExecutor, { space, afterMs }: ConclaveExpiry) {
  if (afterMs <= 0) {
    await dropNow([space]).execute(executor)
    return
  }
  await sql`with expired as (delete from conclave_entries where expires_at <= now())
    update conclave_entries set expires_at = now() + ${`${afterMs} milliseconds`}::interval
    where space = ${space} and (expires_at is null or expires_at > now())`.execute(executor)
}

/**
 * The database conclave's expiries on the process's group commit: the keyspaces of the runs
 * that ended while the writer's previous turn was at the database are dropped by one
 * `delete`, a clause of the turn's one statement (a commit shared with the runs' own writes),
 * and each run's end waits for it as before. A keyspace kept for a while (`retainMs`) is rare
 * and takes the turn's transaction.
 */
export const conclaveExpiries: WriteChannel<ConclaveExpiry> = {
  name: 'conclave expiries',
  statement(_db, expiries) {
    if (expiries.some((expiry) => expiry.afterMs > 0)) return undefined
    return dropNow([...new Set(expiries.map((expiry) => expiry.space))])
  },
  async store(executor, expiries) {
    const now = expiries.filter((expiry) => expiry.afterMs <= 0)
    if (now.length > 0) {
      await dropNow(now.map((expiry) => expiry.space)).execute(executor)
    }
    for (const expiry of expiries.filter((each) => each.afterMs > 0)) {
      await storeOne(executor, expiry)
    }
  },
}

/**
 * Expires one keyspace as its own statement(s), for a conclave without a group commit.
 *
 * @example
 * await expireConclaveNow(db, { space: runId, afterMs: 0 })
 */
export function expireConclaveNow(db: Kysely<Database>, expiry: ConclaveExpiry): Promise<void> {
  return storeOne(db, expiry)
}
