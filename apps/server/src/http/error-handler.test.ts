import { ModelAuthError, ModelRateLimitedError, ModelUnavailableError } from '@baton/core'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { installErrorHandler, toErrorResponse } from './error-handler'
import { HttpError } from './http-errors'
import { requestIdOf } from './request-id'

describe('toErrorResponse', () => {
  const facts = { ref: 'openai:gpt-4o-mini', provider: 'openai', attempts: 3, reason: 'nope' }

  it('answers a model provider failure as the gateway error it is, naming what to fix', () => {
    const auth = toErrorResponse(
      new ModelAuthError({ ...facts, attempts: 1, status: 401, variable: 'OPENAI_API_KEY' }),
    )
    expect(auth.status).toBe(502)
    expect(auth.body.error).toMatchObject({
      code: 'MODEL_AUTH_FAILED',
      details: { variable: 'OPENAI_API_KEY', status: 401 },
    })
    expect(auth.body.error.message).toContain('set OPENAI_API_KEY to a valid key')
    expect(toErrorResponse(new ModelRateLimitedError({ ...facts, status: 429 })).status).toBe(503)
    expect(toErrorResponse(new ModelUnavailableError({ ...facts, status: 500 })).status).toBe(502)
  })
})

describe('the error handler', () => {
  it('names the request of a failure it does not describe, so its log can be found', async () => {
    const app = Fastify({ logger: false, genReqId: requestIdOf })
    installErrorHandler(app)
    app.get('/broken', async () => {
      throw new Error('connection string postgres://user:secret@db/baton refused')
    })
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/broken',
        headers: { 'x-request-id': 'edge-42' },
      })
      expect(response.statusCode).toBe(500)
      expect(response.json()).toEqual({
        error: {
          code: 'INTERNAL',
          message: 'Internal server error.',
          details: { requestId: 'edge-42' },
        },
      })
    } finally {
      await app.close()
    }
  })

  // Clients that retry a 503 by themselves (ky, got, most SDKs) wait what Retry-After says.
  it('tells a client when to retry a 503: the provider’s own wait, else a few seconds', async () => {
    const facts = {
      ref: 'openai:gpt-4o-mini',
      provider: 'openai',
      attempts: 3,
      reason: 'slow down',
    }
    const app = Fastify({ logger: false })
    installErrorHandler(app)
    app.get('/database', async () => {
      throw new HttpError(503, 'DATABASE_UNAVAILABLE', 'The database is not answering.')
    })
    app.get('/provider', async () => {
      throw new ModelRateLimitedError({ ...facts, status: 429, retryAfterSeconds: 12.2 })
    })
    app.get('/provider-silent', async () => {
      throw new ModelRateLimitedError({ ...facts, status: 429 })
    })
    app.get('/gateway', async () => {
      throw new ModelUnavailableError({ ...facts, status: 500 })
    })
    try {
      const database = await app.inject({ method: 'GET', url: '/database' })
      expect(database.statusCode).toBe(503)
      expect(database.headers['retry-after']).toBe('5')
      const provider = await app.inject({ method: 'GET', url: '/provider' })
      expect(provider.statusCode).toBe(503)
      expect(provider.headers['retry-after']).toBe('13')
      expect(
        (await app.inject({ method: 'GET', url: '/provider-silent' })).headers['retry-after'],
      ).toBe('5')
      // Not a 503: nothing says a retry would go better.
      const gateway = await app.inject({ method: 'GET', url: '/gateway' })
      expect(gateway.statusCode).toBe(502)
      expect(gateway.headers['retry-after']).toBeUndefined()
    } finally {
      await app.close()
    }
  })
})
