import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { readSettings } from '../settings'

const token = 'test-token-0123456789abcdef'
let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp({
    apiToken: token,
    publicReads: false,
    bodyLimit: 4096,
    rateLimit: { max: 25, windowMs: 60_000 },
  })
})
afterAll(async () => {
  await app.close()
})

const plan = { steps: [{ op: 'stop', output: 'ok' }] }

describe('BATON_API_TOKEN', () => {
  it('refuses a change without the bearer token with 401 and stores nothing', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
    expect(response.statusCode).toBe(401)
    expect(response.json().error.code).toBe('UNAUTHORIZED')
    // A 401 names the scheme to answer it with (RFC 9110 §11.6.1), and, when a credential was
    // sent, that it was refused (RFC 6750 §3).
    expect(response.headers['www-authenticate']).toBe('Bearer realm="baton"')
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: 'Bearer not-the-token-at-all' },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="baton", error="invalid_token"')
    expect(wrong.json().error.message).toBe(
      'The bearer credential is neither the API token nor a live API key.',
    )
    // Another scheme is named as what is wrong, not taken for a wrong token.
    const basic = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` },
    })
    expect(basic.statusCode).toBe(401)
    expect(basic.headers['www-authenticate']).toBe('Bearer realm="baton", error="invalid_token"')
    expect(basic.json().error.message).toBe(
      'The Authorization header is not "Bearer <credential>": send the API token or an API key that way.',
    )
    const list = await app.inject({
      method: 'GET',
      url: '/api/v1/runs',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(list.json().total).toBe(0)
  })

  it('accepts a change with the bearer token', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan },
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.statusCode).toBe(202)
  })

  it('closes reads too when BATON_PUBLIC_READS=false, but never /health nor the agent directory', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).statusCode).toBe(401)
    expect((await app.inject({ method: 'GET', url: '/api/v1/agents' })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
  })
})

describe('limits and headers', () => {
  it('refuses a body over the limit with 413 in the one error shape', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan, inputs: { big: 'x'.repeat(8192) } },
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.statusCode).toBe(413)
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('sends security headers and no CORS header to a foreign origin', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://evil.example' },
    })
    // helmet's defaults, but the content security policy (the playground and the Swagger UI
    // load their own scripts).
    expect(response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    })
    expect(response.headers['content-security-policy']).toBeUndefined()
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
    // An answer no route gave, and an error, carry them too.
    const missing = await app.inject({ method: 'GET', url: '/api/v1/nothing-here' })
    expect(missing.headers['x-frame-options']).toBe('SAMEORIGIN')
  })

  it('answers an unknown API route with a JSON 404', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/nothing-here',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.statusCode).toBe(404)
    expect(response.json().error.code).toBe('NOT_FOUND')
  })

  it('rate-limits a client past its allowance with 429', async () => {
    let status = 0
    for (let index = 0; index < 40 && status !== 429; index++) {
      status = (
        await app.inject({
          method: 'GET',
          url: '/api/v1/runs',
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode
    }
    expect(status).toBe(429)
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/runs',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.json().error.code).toBe('RATE_LIMITED')
  })
})

describe('readSettings', () => {
  it('reads the defaults', () => {
    const settings = readSettings({})
    expect(settings).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      logLevel: 'info',
    })
    expect(settings.dataDir).toMatch(/\.baton$/)
    // Unset: public while no token and no key exist (see plugins/authenticate.ts).
    expect(settings.publicReads).toBeUndefined()
  })

  it('stops the start on a bad value, naming the variable', () => {
    expect(() => readSettings({ PORT: 'eighty' })).toThrow(/PORT/)
    expect(() => readSettings({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/)
    expect(() => readSettings({ BATON_API_TOKEN: 'short' })).toThrow(/BATON_API_TOKEN/)
    expect(() => readSettings({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/)
  })
})
