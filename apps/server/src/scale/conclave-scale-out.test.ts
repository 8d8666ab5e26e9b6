import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { createDatabaseConclave } from '../db/conclave-repository'
import type { CreatedServices } from '../services/create-services'

const hasPostgres = inject('postgresUrl') !== ''
const canRun = (hasRedis && hasPostgres) || process.env.CI === 'true'
if (!canRun) {
  console.warn('[conclave scale tests] redis-server or PostgreSQL not found: skipping them.')
}

const conclaveOf = (app: FastifyInstance) => (app.baton as CreatedServices).conclave

describe.runIf(canRun)('the conclave of servers that scale out (REDIS_URL)', () => {
  let redis: RedisServer | undefined
  const apps: FastifyInstance[] = []
  let first: FastifyInstance
  let second: FastifyInstance
  beforeAll(async () => {
    redis = await startRedisServer({ persistence: 'append-only' })
    const database = await databaseSettings('postgres')
    const shared = { ...database, redisUrl: redis.url }
    // The first migrates the database; the second starts on it after.
    first = await createTestApp({ ...shared, workerName: 'conclave-a' })
    apps.push(first)
    second = await createTestApp({ ...shared, workerName: 'conclave-b' })
    apps.push(second)
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    await redis?.stop()
  })

  it('reads through one process what another wrote, and refuses a stale compare-and-set there', async () => {
    const space = `run-${Date.now()}`
    const written = await conclaveOf(first).write(
      space,
      'draft',
      { lines: ['one'] },
      {
        writtenBy: '0x1111111111111111111111111111111111111111',
        ifVersion: 0,
      },
    )
    expect(await conclaveOf(second).read(space, 'draft')).toEqual(written)
    // The second saw no write yet (version 0): its compare-and-set is stale and changes nothing.
    await expect(
      conclaveOf(second).write(
        space,
        'draft',
        { lines: ['two'] },
        { writtenBy: 'b', ifVersion: 0 },
      ),
    ).rejects.toMatchObject({ code: 'CONCLAVE_CONFLICT', key: 'draft', expected: 0, actual: 1 })
    expect((await conclaveOf(first).read(space, 'draft'))?.value).toEqual({ lines: ['one'] })
    // With the version it read, it goes through, and the first sees it.
    await conclaveOf(second).write(
      space,
      'draft',
      { lines: ['one', 'two'] },
      {
        writtenBy: 'b',
        ifVersion: 1,
      },
    )
    expect(await conclaveOf(first).read(space, 'draft')).toMatchObject({
      value: { lines: ['one', 'two'] },
      writtenBy: 'b',
      version: 2,
    })
  })

  it('gives a run the Redis keyspace: what its conclave step wrote is read through the other process', async () => {
    const plan = {
      steps: [
        { op: 'conclave', action: 'write', key: 'plan', value: 'ship it', ifVersion: 0 },
        { op: 'ask_user', question: 'Go on?', saveAs: 'answer' },
      ],
    }
    const submitted = await first.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
    expect(submitted.statusCode).toBe(202)
    const { id } = submitted.json() as { id: string }
    // Either process may take the run off the queue; a paused run keeps its keyspace.
    await waitFor(
      async () => {
        const run = (await second.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
        return run.status === 'paused' ? run : undefined
      },
      { what: 'the run to pause' },
    )
    expect(await conclaveOf(second).read(id, 'plan')).toMatchObject({
      value: 'ship it',
      version: 1,
    })
    // Nothing went to the database's conclave: the runs of every process share Redis's.
    expect(await createDatabaseConclave(second.baton.db).list(id)).toEqual([])
  })

  it('closes its Redis connection when the server shuts down', async () => {
    const client = new Redis(redis!.url)
    try {
      const names = async () => String(await client.client('LIST'))
      expect(await names()).toContain('name=baton-conclave:conclave-b ')
      apps.splice(apps.indexOf(second), 1)
      await second.close()
      await waitFor(
        async () =>
          (await names()).includes('name=baton-conclave:conclave-b ') ? undefined : true,
        { what: 'the conclave connection to close' },
      )
      expect(await names()).toContain('name=baton-conclave:conclave-a ')
    } finally {
      client.disconnect()
    }
  })
})
