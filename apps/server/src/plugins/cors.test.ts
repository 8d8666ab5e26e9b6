import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'

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
