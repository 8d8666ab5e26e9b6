import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

// The shared request hooks (rate limit, authentication) decide most requests without waiting;
// these are the paths where they do wait, or where a route opts out.
const analyst = '/agent/0x1111111111111111111111111111111111111111'
const plan = { steps: [{ op: 'stop', output: 'ok' }] }

describe('the rate limit', () => {
  const rateLimit = { max: 6, windowMs: 60_000 }
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ rateLimit })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it('answers GET /agent/:wallet past the allowance with 429, but never the probes', async () => {
    const first = await app.inject({ method: 'GET', url: analyst })
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-ratelimit-limit']).toBe(String(rateLimit.max))
    let status = 200
    for (let index = 0; index < rateLimit.max + 5 && status !== 429; index++) {
      status = (await app.inject({ method: 'GET', url: analyst })).statusCode
    }
    expect(status).toBe(429)
    const refused = await app.inject({ method: 'GET', url: analyst })
    expect(refused.statusCode).toBe(429)
    expect(refused.json().error.code).toBe('RATE_LIMITED')
    // The same client, over its allowance: liveness and readiness still answer.
    for (let index = 0; index < rateLimit.max + 2; index++) {
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    }
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
  })
})

describe('authentication without BATON_API_TOKEN', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ apiToken: undefined, publicReads: undefined })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it('is open until an API key exists, then asks for one: 401 without, 403 without the scope', async () => {
    const open = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
    expect(open.statusCode).toBe(202)
    const { apiKeys } = app.baton.repositories
    const runner = (await apiKeys.create({ name: 'runner', scopes: ['read', 'run'] })).key
    const reader = (await apiKeys.create({ name: 'reader', scopes: ['read'] })).key
    app.noteApiKeysChanged()
    const anonymous = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error.code).toBe('UNAUTHORIZED')
    const unknown = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: 'Bearer baton_not-a-live-key' },
    })
    expect(unknown.statusCode).toBe(401)
    const notAKey = await app.inject({
      method: 'GET',
      url: '/api/v1/runs',
      headers: { authorization: 'Bearer something-else' },
    })
    expect(notAKey.statusCode).toBe(401)
    const withoutScope = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: `Bearer ${reader}` },
    })
    expect(withoutScope.statusCode).toBe(403)
    expect(withoutScope.json().error).toMatchObject({
      code: 'FORBIDDEN',
      details: { scope: 'run' },
    })
    const accepted = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: `Bearer ${runner}` },
    })
    expect(accepted.statusCode).toBe(202)
    // Reads are private once a key exists; the agent directory stays public.
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).statusCode).toBe(401)
    expect((await app.inject({ method: 'GET', url: analyst })).statusCode).toBe(200)
    const whoami = await app.inject({
      method: 'GET',
      url: '/api/v1/whoami',
      headers: { authorization: `Bearer ${reader}` },
    })
    expect(whoami.json().principal).toMatchObject({ kind: 'key', name: 'reader' })
  })
})
