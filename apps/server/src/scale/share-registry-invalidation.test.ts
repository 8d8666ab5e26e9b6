import type { MemoryEntry } from '@baton/core'
import { createDatabase } from '@baton/testing/postgres'
import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis, type RedisOptions } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { countQueries } from '../__fixtures__/count-queries'
import { createDatabaseMemoryStore } from '../db/memory-repository'
import { openDatabase } from '../db/open-database'
import { cacheMemoryStore } from '../memory/cache-memory-store'
import { memoryAnnouncement, memoryTopics } from '../memory/memory-announcements'
import type { BatonServices } from '../services'
import { type InvalidationTopics, shareRegistryInvalidation } from './share-registry-invalidation'

const canRun = hasRedis || process.env.CI === 'true'
const postgresUrl = inject('postgresUrl')
if (!canRun) console.warn('[scale tests] redis-server not found: skipping them.')

let redis: RedisServer | undefined
const clients: Redis[] = []
beforeAll(async () => {
  if (canRun) redis = await startRedisServer({ persistence: 'append-only' })
})
afterAll(async () => {
  for (const client of clients) client.disconnect()
  await redis?.stop()
})

/** One process's registry: it records what was dropped from its cache, and from its topic's. */
function processRegistry(redisOptions: RedisOptions = {}) {
  const dropped: string[] = []
  const topics: InvalidationTopics = {
    swarms: (key) => {
      dropped.push(`swarms ${key ?? 'all'}`)
    },
  }
  const registry: BatonServices['registry'] = {
    ensureRegisteredAgent: async () => {
      throw new Error('not used here')
    },
    invalidate: (wallet) => {
      dropped.push(String(wallet))
    },
    clear: () => {
      dropped.push('everything')
    },
  }
  const connect = () => {
    const client = new Redis(redis!.url, { maxRetriesPerRequest: null, ...redisOptions })
    clients.push(client)
    return client
  }
  return { registry, dropped, topics, publisher: connect(), subscriber: connect() }
}

describe.runIf(canRun)('shareRegistryInvalidation', () => {
  it('drops a changed or revoked wallet from the cache of every process, and clears all of them', async () => {
    const wallet = '0x1111111111111111111111111111111111111111'
    const processes = [processRegistry(), processRegistry(), processRegistry()]
    const shared = await Promise.all(
      processes.map((each) =>
        shareRegistryInvalidation(each.registry, { ...each, channel: 'test:registry' }),
      ),
    )
    shared[0]!.invalidate(wallet)
    await waitFor(
      () => (processes.every((each) => each.dropped.includes(wallet)) ? true : undefined),
      { what: 'every process to drop the wallet' },
    )
    shared[2]!.clear()
    await waitFor(
      () => (processes.every((each) => each.dropped.includes('everything')) ? true : undefined),
      { what: 'every process to clear its cache' },
    )
    for (const registry of shared) await registry.close()
  })

  it('drops everything a process kept while its subscriber was away: at once, while away, and once subscribed again', async () => {
    const wallet = '0x2222222222222222222222222222222222222222'
    // a's subscriber comes back 800 ms after it is cut: what b announces meanwhile is lost to it.
    const a = processRegistry({ retryStrategy: () => 800 })
    const b = processRegistry()
    // Asked before it subscribes (a subscriber takes no other command).
    const subscriberId = await a.subscriber.client('ID')
    const [sharedA, sharedB] = [
      await shareRegistryInvalidation(a.registry, { ...a, channel: 'test:away', awayDropMs: 100 }),
      await shareRegistryInvalidation(b.registry, { ...b, channel: 'test:away' }),
    ]
    const admin = processRegistry().publisher
    const closed = new Promise((resolve) => a.subscriber.once('close', resolve))
    // How much a had dropped when its subscriber was back.
    const back = new Promise<number>((resolve) =>
      a.subscriber.once('ready', () => resolve(a.dropped.length)),
    )
    await admin.client('KILL', 'ID', String(subscriberId))
    await closed
    await sharedB.announce('swarms', 'changed-while-away')
    sharedB.invalidate(wallet)
    const droppedWhenBack = await back
    // Lost to a, so a kept nothing it may have missed: dropped at the cut and every 100 ms
    // while away (800 ms)...
    expect(droppedWhenBack).toBeGreaterThanOrEqual(2 * 4)
    expect(a.dropped.slice(0, 2)).toEqual(['everything', 'swarms all'])
    // ...and once subscribed again; then it stops dropping by itself.
    const settled = async () => {
      const before = a.dropped.length
      await new Promise((resolve) => setTimeout(resolve, 400))
      return a.dropped.length === before ? before : undefined
    }
    const droppedInAll = await waitFor(settled, { what: 'a to stop dropping once back' })
    expect(droppedInAll).toBeGreaterThan(droppedWhenBack)
    expect(a.dropped.slice(-2)).toEqual(['everything', 'swarms all'])
    expect(a.dropped).not.toContain('swarms changed-while-away')
    expect(a.dropped).not.toContain(wallet)
    // And b's announcements reach it again.
    await sharedB.announce('swarms', 'after')
    await waitFor(() => (a.dropped.includes('swarms after') ? true : undefined), {
      what: "b's announcement once a is back",
    })
    for (const registry of [sharedA, sharedB]) await registry.close()
  })

  it('tells every process to drop everything once a process that could not announce a change can', async () => {
    const wallet = '0x3333333333333333333333333333333333333333'
    const a = processRegistry()
    const b = processRegistry({ retryStrategy: () => 500 })
    const [sharedA, sharedB] = [
      await shareRegistryInvalidation(a.registry, { ...a, channel: 'test:mute' }),
      await shareRegistryInvalidation(b.registry, { ...b, channel: 'test:mute' }),
    ]
    const admin = processRegistry().publisher
    const publisherId = await b.publisher.client('ID')
    const closed = new Promise((resolve) => b.publisher.once('close', resolve))
    await admin.client('KILL', 'ID', String(publisherId))
    await closed
    // b's publisher is away: its announcement cannot go, and a is still listening.
    await sharedB.announce('swarms', 'changed-while-mute')
    sharedB.invalidate(wallet)
    await waitFor(
      () =>
        a.dropped.includes('everything') && a.dropped.includes('swarms all') ? true : undefined,
      { what: 'a to drop everything once b can announce again', timeoutMs: 5_000 },
    )
    // Once: b is not mute any more.
    await sharedB.announce('swarms', 'after')
    await waitFor(() => (a.dropped.includes('swarms after') ? true : undefined), {
      what: "b's next announcement",
    })
    expect(a.dropped.filter((each) => each === 'everything')).toHaveLength(1)
    for (const registry of [sharedA, sharedB]) await registry.close()
  })
})

/** A process's memory store over its own connection to one PostgreSQL, sharing invalidations; it counts its queries. */
async function memoryProcess(databaseUrl: string) {
  const { db } = await openDatabase({ dataDir: '', databaseUrl })
  const counted = countQueries(db)
  const each = processRegistry()
  // Filled in once the copies exist (their announcements go through `shared`).
  const topics: InvalidationTopics = {}
  const shared = await shareRegistryInvalidation(each.registry, {
    ...each,
    channel: 'test:memory',
    topics,
  })
  // Copies that outlive the test: only an announcement can change them.
  const cached = cacheMemoryStore(createDatabaseMemoryStore(counted.db), {
    onWrite: (scope, appended) => {
      const { topic, key } = memoryAnnouncement(scope, appended)
      return shared.announce(topic, key)
    },
    ttlMs: 10 * 60_000,
  })
  Object.assign(topics, memoryTopics(cached))
  return { db, memory: cached.memory, shared, queries: counted.queries }
}

const note = (content: string): MemoryEntry => ({
  role: 'note',
  content,
  createdAt: '2026-01-01T00:00:00.000Z',
})
const contents = (entries: MemoryEntry[]) => entries.map((entry) => entry.content)

describe.runIf(canRun && (postgresUrl !== '' || process.env.CI === 'true'))(
  "an agent's memory kept by two processes",
  () => {
    it('reads from memory while nothing changed, and sees what the other process wrote', async () => {
      const databaseUrl = await createDatabase(postgresUrl)
      const [a, b] = [await memoryProcess(databaseUrl), await memoryProcess(databaseUrl)]
      try {
        expect(await a.memory.read('analyst', { limit: 20 })).toEqual([])
        const before = a.queries()
        expect(await a.memory.read('analyst', { limit: 20 })).toEqual([])
        expect(a.queries()).toBe(before)

        // Its own append is added to its copy: no query to read it back.
        await a.memory.append('analyst', [note('from a')])
        const afterAppend = a.queries()
        expect(contents(await a.memory.read('analyst', { limit: 20 }))).toEqual(['from a'])
        expect(a.queries()).toBe(afterAppend)

        await b.memory.append('analyst', [note('from b')])
        await waitFor(
          async () => {
            const read = contents(await a.memory.read('analyst', { limit: 20 }))
            return read.length === 2 ? read : undefined
          },
          { what: "b's write in a's reads", timeoutMs: 10_000 },
        )
        expect(contents(await a.memory.read('analyst', { limit: 20 }))).toEqual([
          'from a',
          'from b',
        ])
        // b's append came with its entries: a added it to its copy, and read nothing again.
        expect(a.queries()).toBe(afterAppend)

        // A clear in b drops a's copy: a reads the database again.
        await b.memory.clear('analyst')
        await waitFor(
          async () =>
            (await a.memory.read('analyst', { limit: 20 })).length === 0 ? true : undefined,
          { what: "b's clear in a's reads", timeoutMs: 10_000 },
        )
        expect(a.queries()).toBeGreaterThan(afterAppend)
      } finally {
        for (const each of [a, b]) {
          await each.shared.close()
          await each.db.destroy()
        }
      }
    })

    it('ends with the database’s order in both processes after they write one agent’s memory at once', async () => {
      const databaseUrl = await createDatabase(postgresUrl)
      const [a, b] = [await memoryProcess(databaseUrl), await memoryProcess(databaseUrl)]
      try {
        await Promise.all([
          a.memory.read('shared', { limit: 50 }),
          b.memory.read('shared', { limit: 50 }),
        ])
        await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            (index % 2 ? a : b).memory.append('shared', [note(`write ${index}`)]),
          ),
        )
        const truth = contents(await createDatabaseMemoryStore(a.db).read('shared', { limit: 50 }))
        expect(truth).toHaveLength(10)
        for (const each of [a, b]) {
          await waitFor(
            async () =>
              JSON.stringify(contents(await each.memory.read('shared', { limit: 50 }))) ===
              JSON.stringify(truth)
                ? true
                : undefined,
            { what: 'the database’s order in every process', timeoutMs: 10_000 },
          )
        }
      } finally {
        for (const each of [a, b]) {
          await each.shared.close()
          await each.db.destroy()
        }
      }
    })
  },
)
