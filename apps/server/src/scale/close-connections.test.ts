import { tmpdir } from 'node:os'
import path from 'node:path'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'

const hasPostgres = inject('postgresUrl') !== ''
const canRun = (hasRedis && hasPostgres) || process.env.CI === 'true'
if (!canRun) console.warn('[closing with Redis] redis-server or PostgreSQL not found: skipping.')

/** The clients Redis has, but the one asking: `CLIENT LIST`, one line each. */
async function otherClients(url: string): Promise<string[]> {
  const client = new Redis(url)
  try {
    const lines = ((await client.client('LIST')) as string).trim().split('\n')
    const self = String(await client.client('ID'))
    return lines.filter((line) => !line.startsWith(`id=${self} `))
  } finally {
    client.disconnect()
  }
}

/** Connections to `databaseUrl`'s database, but the one asking (`pg_stat_activity`). */
async function otherSessions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ count: string }>(
      'select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    )
    return Number(rows[0]!.count)
  } finally {
    await client.end()
  }
}

describe.runIf(canRun)('a scaled-out server closed in its process (REDIS_URL)', () => {
  let redis: RedisServer | undefined
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  // An app embedded in a longer-lived process (a host, a test) is closed and the process goes
  // on: a connection left open would reconnect to a Redis that is gone, for ever.
  it('leaves no connection to Redis open once closed, the run queue worker’s included', async () => {
    const app = await createTestApp({
      ...(await databaseSettings('postgres')),
      redisUrl: redis!.url,
      workerName: 'closing',
    })
    expect((await otherClients(redis!.url)).length).toBeGreaterThan(0)
    await app.close()
    expect(await otherClients(redis!.url)).toEqual([])
  })

  // A misconfigured process fails its start; in a host that goes on, what the start had
  // opened by then (the database's pool, the Redis connections, the run queue's worker) must
  // not stay open, nor the worker take jobs for a server that never started.
  it('leaves no connection open when its start fails after connecting (a tools module that cannot be loaded)', async () => {
    const database = await databaseSettings('postgres')
    await expect(
      createTestApp({
        ...database,
        redisUrl: redis!.url,
        workerName: 'failing',
        toolsModule: path.join(tmpdir(), 'baton-no-such-tools-module.mjs'),
      }),
    ).rejects.toThrow(/BATON_TOOLS_MODULE/)
    expect(await otherClients(redis!.url)).toEqual([])
    expect(await otherSessions(database.databaseUrl!)).toBe(0)
  })
})
