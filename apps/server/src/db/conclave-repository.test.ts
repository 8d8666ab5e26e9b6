import { describeConclaveStore } from '@baton/testing/conclave'
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

  describeConclaveStore(backend, async () => store())

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
