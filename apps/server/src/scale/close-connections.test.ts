import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
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
})
