import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { createDatabaseConclave } from './conclave-repository'

describe.each(backends)('createDatabaseConclave on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
  })
  afterAll(async () => {
    await app.close()
  })
  let count = 0
  const fresh = () => `space-${backend}-${count++}`
  const store = () => createDatabaseConclave(app.baton.db, { maxKeys: 3, maxValueBytes: 64 })

  it('versions writes per key, never reusing a version after a delete', async () => {
    const conclave = store()
    const at = fresh()
    expect((await conclave.write(at, 'k', 'a', { writtenBy: '0xaa', ifVersion: 0 })).version).toBe(
      1,
    )
    expect(await conclave.read(at, 'k')).toMatchObject({
      value: 'a',
      writtenBy: '0xaa',
      version: 1,
    })
    expect(await conclave.delete(at, 'k')).toBe(true)
    expect(await conclave.read(at, 'k')).toBeNull()
    expect((await conclave.write(at, 'k', 'b', { writtenBy: '0xbb', ifVersion: 0 })).version).toBe(
      2,
    )
  })

  it('refuses a stale ifVersion with CONCLAVE_CONFLICT, and writes past its bounds with CONCLAVE_LIMIT', async () => {
    const conclave = store()
    const at = fresh()
    await conclave.write(at, 'a', 1, { writtenBy: 'w' })
    await expect(
      conclave.write(at, 'a', 2, { writtenBy: 'w', ifVersion: 0 }),
    ).rejects.toMatchObject({
      code: 'CONCLAVE_CONFLICT',
      actual: 1,
    })
    await expect(
      conclave.write(at, 'big', 'x'.repeat(100), { writtenBy: 'w' }),
    ).rejects.toMatchObject({ code: 'CONCLAVE_LIMIT' })
    await conclave.write(at, 'b', 1, { writtenBy: 'w' })
    await conclave.write(at, 'c', 1, { writtenBy: 'w' })
    await expect(conclave.write(at, 'd', 1, { writtenBy: 'w' })).rejects.toMatchObject({
      code: 'CONCLAVE_LIMIT',
    })
    expect(await conclave.list(at)).toEqual(['a', 'b', 'c'])
    expect((await conclave.read(at, 'a'))?.value).toBe(1)
  })

  it('never loses an update among concurrent compare-and-set writers', async () => {
    const conclave = store()
    const at = fresh()
    const writers = 6
    const increments = 4
    const writer = async (id: number) => {
      for (let done = 0; done < increments; ) {
        const current = await conclave.read(at, 'counter')
        const seen = (current?.value as number[] | undefined) ?? []
        try {
          await conclave.write(at, 'counter', [...seen, id], {
            writtenBy: `w${id}`,
            ifVersion: current?.version ?? 0,
          })
          done += 1
        } catch (error) {
          if ((error as { code?: string }).code !== 'CONCLAVE_CONFLICT') throw error
        }
      }
    }
    await Promise.all(Array.from({ length: writers }, (_, id) => writer(id)))
    const final = await conclave.read(at, 'counter')
    expect((final?.value as number[] | undefined)?.length).toBe(writers * increments)
    expect(final?.version).toBe(writers * increments)
  })

  it('drops a keyspace when its run ends, or keeps it until retainMs has passed', async () => {
    const conclave = store()
    const [now, later] = [fresh(), fresh()]
    await conclave.write(now, 'k', 1, { writtenBy: 'w' })
    await conclave.write(later, 'k', 1, { writtenBy: 'w' })
    await conclave.expire(now, 0)
    await conclave.expire(later, 60_000)
    expect(await conclave.list(now)).toEqual([])
    expect(await conclave.list(later)).toEqual(['k'])
  })
})

describe('the conclave op in a server run', () => {
  it('runs on the database conclave and leaves nothing behind when the run ends', async () => {
    const app = await createTestApp()
    try {
      const plan = {
        steps: [
          { op: 'conclave', action: 'write', key: 'draft', value: 'v1', saveAs: 'first' },
          { op: 'conclave', action: 'write', key: 'draft', value: 'v2', ifVersion: 1 },
          { op: 'conclave', action: 'read', key: 'draft', saveAs: 'read' },
          { op: 'stop', output: '{{read.version}}' },
        ],
      }
      const started = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
      const id = started.json().id as string
      const run = await waitFor(async () => {
        const body = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
        return ['queued', 'running'].includes(body.status) ? undefined : body
      })
      expect(run.status).toBe('done')
      expect(run.output).toBe(2)
      expect(await createDatabaseConclave(app.baton.db).list(id)).toEqual([])
    } finally {
      await app.close()
    }
  })
})
