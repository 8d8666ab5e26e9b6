import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunQueue } from '../queue'
import { checkKeyedJobs } from '../queue/__fixtures__/check-keyed-jobs'
import { createBullmqQueue } from './create-bullmq-queue'

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[BullMQ run queue] redis-server not found: skipping.')

let redis: RedisServer | undefined
const connections: Redis[] = []
let queue: RunQueue | undefined

beforeAll(async () => {
  if (!canRun) return
  if (!hasRedis) throw new Error('redis-server is required under CI=true')
  redis = await startRedisServer()
}, 60_000)

afterAll(async () => {
  await queue?.close()
  for (const connection of connections) connection.disconnect()
  await redis?.stop()
})

const connect = (options: { maxRetriesPerRequest: number | null }) => {
  const connection = new Redis(redis!.url, options)
  connections.push(connection)
  return connection
}

describe.runIf(canRun)('the BullMQ run queue', () => {
  it('tells a running job’s lease when its lock could not be renewed, at each renewal, and not before', async () => {
    const name = `lease-${crypto.randomUUID()}`
    queue = createBullmqQueue({
      connection: connect({ maxRetriesPerRequest: 1 }),
      workerConnection: connect({ maxRetriesPerRequest: null }),
      addTimeoutMs: 5_000,
      name,
      concurrency: 1,
      leaseMs: 1_000,
      work: true,
    })
    let lost = 0
    let running = false
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    queue.process(async (_job, lease) => {
      running = true
      const stop = lease?.onLost(() => {
        lost += 1
      })
      await released
      stop?.()
    })
    await queue.add({ kind: 'start', runId: 'r1' })
    await waitFor(async () => (running ? true : undefined), { what: 'the job to run' })
    // Its lock is renewed (every quarter of the lease): nothing is lost for two leases.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(lost).toBe(0)
    // Its lock taken (expired while the process was stalled, or another process holds it).
    const admin = connect({ maxRetriesPerRequest: 1 })
    const locks = await admin.keys(`bull:${name}:*:lock`)
    expect(locks).toHaveLength(1)
    await admin.set(locks[0]!, 'another-token')
    await waitFor(async () => (lost >= 2 ? true : undefined), {
      timeoutMs: 5_000,
      what: 'the lease to be told twice',
    })
    release()
  }, 30_000)
  it('adds a keyed job once while one with its key waits or runs (its job id), and again once it has ended', async () => {
    const keyed = createBullmqQueue({
      connection: connect({ maxRetriesPerRequest: 1 }),
      workerConnection: connect({ maxRetriesPerRequest: null }),
      addTimeoutMs: 5_000,
      name: `keys-${crypto.randomUUID()}`,
      concurrency: 1,
      leaseMs: 5_000,
      work: true,
    })
    try {
      await checkKeyedJobs(keyed)
    } finally {
      await keyed.close()
    }
  }, 30_000)
})
