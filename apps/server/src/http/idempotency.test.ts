import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeApiKey } from '../__fixtures__/api-keys'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

const plan = (name: string) => ({
  name,
  steps: [{ op: 'tool', toolName: 'wait', args: { ms: 1 }, saveAs: 'w' }],
})

describe.each(backends)('Idempotency-Key on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  const post = (url: string, payload: unknown, key?: string) =>
    app.inject({
      method: 'POST',
      url,
      payload: payload as Record<string, unknown>,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    })
  const runsNamed = async (name: string) =>
    (await app.baton.repositories.runs.list({ limit: 200, offset: 0 })).runs.filter(
      (run) => run.plan.name === name,
    )

  it('answers a retried POST /api/v1/runs with the first run’s id and creates one run', async () => {
    const first = await post('/api/v1/runs', { plan: plan('retried') }, 'key-runs-1')
    const second = await post('/api/v1/runs', { plan: plan('retried') }, 'key-runs-1')
    expect(first.statusCode).toBe(202)
    expect(second.statusCode).toBe(202)
    expect(second.json().id).toBe(first.json().id)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    expect((await runsNamed('retried')).map((run) => run.id)).toEqual([first.json().id])
    // Without a key, each request is its own run.
    await post('/api/v1/runs', { plan: plan('unkeyed') })
    await post('/api/v1/runs', { plan: plan('unkeyed') })
    expect(await runsNamed('unkeyed')).toHaveLength(2)
  })

  it('refuses a key reused with another body (422), and keeps keys apart per route', async () => {
    const first = await post('/api/v1/runs', { plan: plan('reused') }, 'key-reused')
    expect(first.statusCode).toBe(202)
    const other = await post('/api/v1/runs', { plan: plan('reused-other') }, 'key-reused')
    expect(other.statusCode).toBe(422)
    expect(other.json().error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { key: 'key-reused' },
    })
    expect(await runsNamed('reused-other')).toEqual([])
    // The same key on the bus is another key.
    // A broadcast to a registered agent: stored and delivered, and it runs nobody.
    const message = {
      from: { agentId: 'a' },
      to: { agentId: 'analyst' },
      type: 'broadcast',
      content: 'hi',
    }
    const sent = await post('/api/v1/messages', message, 'key-reused')
    expect(sent.statusCode).toBe(202)
    const again = await post('/api/v1/messages', message, 'key-reused')
    expect(again.json().envelope.id).toBe(sent.json().envelope.id)
  })

  it('frees the key of a request that failed, so its retry is executed', async () => {
    const bad = await post('/api/v1/runs', { plan: { steps: [{ op: 'nope' }] } }, 'key-failed')
    expect(bad.statusCode).toBe(400)
    const good = await post('/api/v1/runs', { plan: plan('after-failure') }, 'key-failed')
    expect(good.statusCode).toBe(202)
    expect(await runsNamed('after-failure')).toHaveLength(1)
  })

  it('refuses a malformed key with 400 naming the header', async () => {
    const response = await post('/api/v1/runs', { plan: plan('bad-key') }, 'has space')
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'Idempotency-Key' }] },
    })
    expect(await runsNamed('bad-key')).toEqual([])
  })
})

describe('Idempotency-Key among many parties', () => {
  const adminToken = 'idempotency-admin-token-0123456789'
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ apiToken: adminToken })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it("keeps each key's Idempotency-Keys its own: the same key from another party neither replays this answer nor blocks this request", async () => {
    const [alice, bob] = [
      await makeApiKey(app, adminToken, 'alice'),
      await makeApiKey(app, adminToken, 'bob'),
    ]
    const post = (key: string, payload: unknown) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/runs',
        payload: payload as Record<string, unknown>,
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'order-123' },
      })
    const body = { plan: plan('shared-key') }
    const bobs = await post(bob, body)
    expect(bobs.statusCode).toBe(202)
    // Alice picks the same (guessable) key after Bob: her run is made, not Bob's replayed.
    const alices = await post(alice, body)
    expect(alices.statusCode).toBe(202)
    expect(alices.headers['idempotent-replayed']).toBeUndefined()
    expect(alices.json().id).not.toBe(bobs.json().id)
    // ... and she can read it; another body under the key is hers to refuse, not Bob's.
    const read = await app.inject({
      method: 'GET',
      url: `/api/v1/runs/${alices.json().id}`,
      headers: { authorization: `Bearer ${alice}` },
    })
    expect(read.statusCode).toBe(200)
    expect((await post(bob, { plan: plan('other-body') })).statusCode).toBe(422)
    // Her own retry still replays her answer.
    const retried = await post(alice, body)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json().id).toBe(alices.json().id)
  })
})
