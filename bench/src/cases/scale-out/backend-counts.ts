import { Redis } from 'ioredis'
import pg from 'pg'

/** What the servers asked of PostgreSQL and Redis, as both count it. */
export type BackendCounts = {
  /** Transactions committed in the database (a statement outside one is one). */
  transactions: number
  /** Commands Redis ran, those of BullMQ's Lua scripts included (`INFO commandstats`). */
  redisCommands: number
  /** Redis `PUBLISH` commands. */
  publishes: number
  /** CPU time of the Redis server, all its threads, in milliseconds (`INFO cpu`). */
  redisCpuMs: number
}

/**
 * Reads PostgreSQL's and Redis's own counters (`pg_stat_database` for the database at
 * `databaseUrl`, `INFO commandstats` and `INFO cpu`), to be read before and after the work and subtracted.
 * Nothing is installed in the servers measured. PostgreSQL updates its statistics within a
 * fraction of a second; the reader's own statement is in the figure (one per read).
 *
 * @example
 * const before = await readBackendCounts(databaseUrl, redisUrl)
 */
export async function readBackendCounts(
  databaseUrl: string,
  redisUrl: string,
): Promise<BackendCounts> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  let transactions: number
  try {
    // The statistics a backend has not reported yet are flushed within a second.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const { rows } = await client.query<{ xact_commit: string }>(
      'select xact_commit from pg_stat_database where datname = current_database()',
    )
    transactions = Number(rows[0]?.xact_commit ?? 0)
  } finally {
    await client.end()
  }
  const redis = new Redis(redisUrl, { lazyConnect: true })
  await redis.connect()
  try {
    const stats = await redis.info('commandstats')
    let redisCommands = 0
    let publishes = 0
    for (const line of stats.split('\n')) {
      const match = /^cmdstat_([a-z|]+):calls=(\d+)/.exec(line.trim())
      if (!match) continue
      const [, name, calls] = match
      if (name === 'publish') publishes = Number(calls)
      redisCommands += Number(calls)
    }
    const cpu = await redis.info('cpu')
    const seconds = (name: string) =>
      Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0)
    const redisCpuMs = (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1000
    return { transactions, redisCommands, publishes, redisCpuMs }
  } finally {
    redis.disconnect()
  }
}
