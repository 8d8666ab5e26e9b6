import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { installErrorHandler } from '../http/error-handler'
import { readSettings } from '../settings'
import { serveHealthOnly } from './serve-health-only'

describe('serveHealthOnly', () => {
  it('answers /health and /ready on a worker-only process and refuses the API with 404 WORKER_ONLY', async () => {
    const app = Fastify()
    installErrorHandler(app)
    serveHealthOnly(app)
    app.get('/health', async () => ({ status: 'ok' }))
    app.get('/api/v1/runs', async () => ({ runs: [] }))
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    const refused = await app.inject({ method: 'GET', url: '/api/v1/runs?limit=1' })
    expect(refused.statusCode).toBe(404)
    expect(refused.json().error.code).toBe('WORKER_ONLY')
    await app.close()
  })
})

describe('readSettings for scale-out', () => {
  it('reads the role, concurrency, worker name and lease, with their defaults', () => {
    const single = readSettings({})
    expect(single).toMatchObject({ redisUrl: undefined, role: 'all', workerConcurrency: 16 })
    expect(single.workerName).toMatch(/:\d+$/)
    const many = readSettings({
      DATABASE_URL: 'postgres://baton@127.0.0.1:5432/baton',
      REDIS_URL: 'redis://127.0.0.1:6379',
      BATON_ROLE: 'worker',
      BATON_WORKER_CONCURRENCY: '3',
      BATON_WORKER_NAME: 'baton-2',
      BATON_LEASE_MS: '5000',
    })
    expect(many).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      role: 'worker',
      workerConcurrency: 3,
      workerName: 'baton-2',
      leaseMs: 5000,
    })
  })

  it('refuses REDIS_URL without DATABASE_URL, naming the variable', () => {
    expect(() => readSettings({ REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(/REDIS_URL/)
    expect(() =>
      readSettings({ DATABASE_URL: 'postgres://x@127.0.0.1/x', BATON_ROLE: 'everything' }),
    ).toThrow(/BATON_ROLE/)
  })
})
