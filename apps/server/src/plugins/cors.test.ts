import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { readSettings } from '../settings'

const friend = 'https://friend.example'
const preflight = (origin: string) =>
  ({
    method: 'OPTIONS',
    url: '/api/v1/runs',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,authorization',
    },
  }) as const

describe('CORS with BATON_CORS_ORIGINS set', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ corsOrigins: [friend] })
  })
  afterAll(async () => {
    await app.close()
  })

  it('answers an allowed origin’s preflight with 204 and the CORS headers', async () => {
    const response = await app.inject(preflight(friend))
    expect(response.statusCode).toBe(204)
    expect(response.headers['access-control-allow-origin']).toBe(friend)
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST')
    expect(response.headers['access-control-allow-headers']).toBe('content-type,authorization')
  })

  it('lets an allowed origin read answers, and no other origin', async () => {
    const allowed = await app.inject({ method: 'GET', url: '/health', headers: { origin: friend } })
    expect(allowed.headers['access-control-allow-origin']).toBe(friend)
    expect(allowed.headers.vary).toContain('Origin')
    // A page there can read when to retry, what a 405 allows and a 401's challenge: headers
    // CORS hides from it unless they are exposed.
    const exposed = String(allowed.headers['access-control-expose-headers']).split(/,\s*/)
    expect(exposed).toEqual(
      expect.arrayContaining([
        'x-request-id',
        'retry-after',
        'allow',
        'www-authenticate',
        'idempotent-replayed',
      ]),
    )
    const foreign = await app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://evil.example' },
    })
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    const refused = await app.inject(preflight('https://evil.example'))
    expect(refused.headers['access-control-allow-origin']).toBeUndefined()
  })
  it('lets an allowed origin read the router’s own refusals (a broken escape, a path too long), and no other origin', async () => {
    for (const url of ['/api/v1/agents/%E0%A4%A', `/agent/${'x'.repeat(150)}`]) {
      const allowed = await app.inject({ method: 'GET', url, headers: { origin: friend } })
      expect(allowed.statusCode, url).toBeGreaterThanOrEqual(400)
      expect(allowed.statusCode, url).toBeLessThan(500)
      expect(allowed.json().error.code, url).toBeTypeOf('string')
      expect(allowed.headers['access-control-allow-origin'], url).toBe(friend)
      expect(allowed.headers.vary, url).toContain('Origin')
      expect(String(allowed.headers['access-control-expose-headers'])).toContain('x-request-id')
      const foreign = await app.inject({
        method: 'GET',
        url,
        headers: { origin: 'https://evil.example' },
      })
      expect(foreign.statusCode, url).toBe(allowed.statusCode)
      expect(foreign.headers['access-control-allow-origin'], url).toBeUndefined()
    }
  })
})

describe('CORS with BATON_CORS_ORIGINS as a person writes it', () => {
  it('matches what a browser sends however the origin was written (case, a trailing slash)', async () => {
    const settings = readSettings({
      BATON_CORS_ORIGINS: ' HTTPS://Friend.Example/ , http://localhost:5173',
    })
    expect(settings.corsOrigins).toEqual([friend, 'http://localhost:5173'])
    const app = await createTestApp({ corsOrigins: settings.corsOrigins })
    try {
      const read = await app.inject({ method: 'GET', url: '/health', headers: { origin: friend } })
      expect(read.headers['access-control-allow-origin']).toBe(friend)
      expect((await app.inject(preflight(friend))).statusCode).toBe(204)
    } finally {
      await app.close()
    }
  })

  it('refuses at start what is not an origin, naming it (a path, no scheme, another scheme, null)', () => {
    for (const given of [
      'https://friend.example/app',
      'friend.example',
      'ftp://friend.example',
      'null',
    ]) {
      expect(() => readSettings({ BATON_CORS_ORIGINS: `http://ok.example,${given}` })).toThrow(
        `BATON_CORS_ORIGINS: ${JSON.stringify(given)} is not an origin`,
      )
    }
    expect(readSettings({ BATON_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*'])
  })
})

describe('CORS with no origins set (the default)', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ corsOrigins: [] })
  })
  afterAll(async () => {
    await app.close()
  })

  it('sends no CORS header, and answers a preflight with the JSON 405 naming the methods', async () => {
    const response = await app.inject(preflight('https://evil.example'))
    expect(response.statusCode).toBe(405)
    expect(response.json().error.code).toBe('METHOD_NOT_ALLOWED')
    expect(response.headers.allow).toBe('GET, HEAD, POST')
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
    expect(response.headers['access-control-allow-methods']).toBeUndefined()
    const read = await app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://evil.example' },
    })
    expect(read.statusCode).toBe(200)
    expect(read.headers['access-control-allow-origin']).toBeUndefined()
  })
})
