import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, it } from 'vitest'
import type { BatonServices } from '../services'
import { shareRegistryInvalidation } from './share-registry-invalidation'

const canRun = hasRedis || process.env.CI === 'true'
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

/** One process's registry: it records what was dropped from its cache. */
function processRegistry() {
  const dropped: string[] = []
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
    const client = new Redis(redis!.url, { maxRetriesPerRequest: null })
    clients.push(client)
    return client
  }
  return { registry, dropped, publisher: connect(), subscriber: connect() }
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
})
