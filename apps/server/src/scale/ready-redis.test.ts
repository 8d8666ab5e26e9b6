import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createDatabase } from '@baton/testing/postgres'
import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'

const postgresUrl = inject('postgresUrl')
const canRun = (hasRedis && postgresUrl !== '') || process.env.CI === 'true'
if (!canRun) console.warn('[ready with Redis] redis-server or PostgreSQL not found: skipping.')

let redis: RedisServer | undefined
let server: ServerProcess | undefined
let dataDir: string | undefined

beforeAll(async () => {
  if (!canRun) return
  if (!hasRedis) throw new Error('redis-server is required under CI=true')
  if (!postgresUrl) throw new Error('PostgreSQL is required under CI=true')
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-ready-redis-'))
  redis = await startRedisServer({ persistence: 'append-only' })
  server = await startServerProcess({
    DATABASE_URL: await createDatabase(postgresUrl),
    REDIS_URL: redis.url,
    BATON_DATA_DIR: dataDir,
    BATON_SEED: 'false',
  })
}, 180_000)

afterAll(async () => {
  await server?.stop({ signal: 'SIGKILL' })
  await redis?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
type Json = Record<string, any>

async function ready(): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server!.url}/ready`, { signal: AbortSignal.timeout(20_000) })
  return { status: response.status, body: (await response.json()) as Json }
}

describe.skipIf(!canRun)('/ready with Redis configured', () => {
  it('answers 503 naming Redis while Redis is down, and 200 once it is back', async () => {
    expect((await ready()).status).toBe(200)
    // Down for a while; /ready must say so within it (each check is bounded to 2 s).
    const restarted = redis!.restart({ downMs: 8_000 })
    const down = await waitFor(
      async () => {
        const answer = await ready()
        return answer.status === 503 ? answer : undefined
      },
      { timeoutMs: 8_000, intervalMs: 200, what: '/ready to answer 503' },
    )
    expect(down.body.error.code).toBe('NOT_READY')
    expect(down.body.error.details.checks.redis).toEqual(expect.any(String))
    // Why, not where: Redis's address is in the log, not in an answer anyone may read.
    expect(JSON.stringify(down.body)).not.toContain(String(new URL(redis!.url).port))
    expect(down.body.error.details.checks.database).toBeUndefined()
    await restarted
    await waitFor(async () => ((await ready()).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: '/ready to answer 200 again',
    })
  }, 120_000)
})
