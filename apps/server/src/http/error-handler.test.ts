import { ModelAuthError, ModelRateLimitedError, ModelUnavailableError } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { toErrorResponse } from './error-handler'

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
