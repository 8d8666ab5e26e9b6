import { appendAsWriter, describeConclaveStore } from '@baton/testing/conclave'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisConclave } from './create-redis-conclave'

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[conclave tests] redis-server not found: skipping the Redis conclave.')

describe.runIf(canRun)('createRedisConclave', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    server = await startRedisServer({ persistence: 'append-only' })
    redis = new Redis(server.url, { maxRetriesPerRequest: null })
  })
  afterAll(async () => {
    redis?.disconnect()
    await server?.stop()
  })
  let count = 0
  const fresh = () => `space-${count++}`
  const store = () => createRedisConclave(redis, { maxKeys: 3, maxValueBytes: 64 })

  it('versions writes per key (never reusing one after a delete) and keeps values exact', async () => {
    const conclave = store()
    const at = fresh()
    const first = await conclave.write(
      at,
      'k',
      { list: [], n: 1 },
      { writtenBy: '0x|aa', ifVersion: 0 },
    )
    expect(first.version).toBe(1)
    expect(await conclave.read(at, 'k')).toMatchObject({
      value: { list: [], n: 1 },
      writtenBy: '0x|aa',
      version: 1,
    })
    expect(await conclave.delete(at, 'k')).toBe(true)
    expect(await conclave.read(at, 'k')).toBeNull()
    expect((await conclave.write(at, 'k', 2, { writtenBy: 'w', ifVersion: 0 })).version).toBe(2)
  })

  describeConclaveStore('redis', async () => store())

  it('never loses an update among concurrent compare-and-set writers on separate connections', async () => {
    const clients = Array.from({ length: 4 }, () => new Redis(server.url))
    try {
      const at = fresh()
      const increments = 5
      await Promise.all(
        clients.map((client, id) =>
          appendAsWriter({ store: createRedisConclave(client), space: at, id, increments }),
        ),
      )
      const final = await store().read(at, 'counter')
      expect((final?.value as number[] | undefined)?.length).toBe(clients.length * increments)
      expect(final?.version).toBe(clients.length * increments)
    } finally {
      for (const client of clients) client.disconnect()
    }
  })
})
