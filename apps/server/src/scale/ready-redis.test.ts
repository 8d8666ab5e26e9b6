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
    // Its outages' ends are logged at info.
    LOG_LEVEL: 'info',
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
  it('answers 503 naming Redis while Redis is down, and 200 once it is back; each connection logs the outage once', async () => {
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
    // Each connection's outage is logged once, and its end: not every attempt to reconnect
    // (ioredis reports each, a few a second for each of the process's connections).
    const redisLines = () =>
      server!
        .output()
        .split('\n')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as { level: number; msg: string }]
          } catch {
            return []
          }
        })
        .filter((line) => /Redis/.test(line.msg))
    const usersWarned = (lines: { level: number; msg: string }[]) =>
      new Set(lines.filter((line) => line.level === 40).map((line) => line.msg.split(':')[0]))
    // /ready is back once its own connection is; each other connection says so as it
    // reconnects, on its own back-off (a second or two later under load).
    const logged = await waitFor(
      async () => {
        const lines = redisLines()
        const messages = lines.map((line) => line.msg)
        const allBack = [...usersWarned(lines)].every((user) =>
          messages.includes(`${user}: Redis is back`),
        )
        return allBack ? lines : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'every connection to log that Redis is back' },
    )
    const warnings = logged.filter((line) => line.level === 40)
    const users = usersWarned(logged)
    console.log(`[ready-redis] ${warnings.length} warnings for an 8 s outage: ${[...users]}`)
    expect(users).toEqual(new Set(['scale-out', 'A2A task buses', 'conclave']))
    expect(warnings.map((line) => line.msg.split(': ')[1])).toEqual(
      warnings.map(() => 'Redis unreachable; retrying'),
    )
    // One per connection at most: a process opens about ten (the scale-out's queue, rail, guard
    // and notices, the A2A task buses' three, the conclave's one).
    expect(warnings.length).toBeLessThanOrEqual(12)
    for (const user of users) {
      expect(logged.map((line) => line.msg)).toContain(`${user}: Redis is back`)
    }
  }, 120_000)
})
