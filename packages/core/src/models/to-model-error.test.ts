import { APICallError } from '@ai-sdk/provider'
import { RetryError } from 'ai'
import { describe, expect, it } from 'vitest'
import type { BatonError } from '../errors'
import { ModelAuthError, ModelRateLimitedError, ModelUnavailableError } from './model-errors'
import { toModelError, toStreamError } from './to-model-error'

const KEY = 'sk-live-abcdef0123456789'
const context = {
  ref: 'openai:gpt-4o-mini',
  provider: 'openai',
  variable: 'OPENAI_API_KEY',
  secrets: [KEY],
}

function callError(
  statusCode: number | undefined,
  extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {},
) {
  return new APICallError({
    message: `failed with ${KEY}`,
    url: `https://user:${KEY}@api.example/v1/responses?api_key=${KEY}`,
    requestBodyValues: { model: 'gpt-4o-mini' },
    ...(statusCode === undefined ? {} : { statusCode }),
    responseBody: JSON.stringify({ error: { message: `bad key ${KEY}` } }),
    data: { error: { message: `bad key ${KEY}` } },
    ...extra,
  })
}

describe('toModelError', () => {
  it('types each kind of provider failure and counts the attempts', () => {
    expect(toModelError(callError(401), context)).toBeInstanceOf(ModelAuthError)
    expect(toModelError(callError(403), context)).toBeInstanceOf(ModelAuthError)
    const retried = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [
        callError(500),
        callError(502),
        callError(429, { responseHeaders: { 'retry-after': '7' } }),
      ],
    })
    const limited = toModelError(retried, context) as BatonError
    expect(limited).toBeInstanceOf(ModelRateLimitedError)
    expect(limited.details).toMatchObject({ attempts: 3, status: 429, retryAfterSeconds: 7 })
    expect(toModelError(callError(undefined, { isRetryable: true }), context)).toBeInstanceOf(
      ModelUnavailableError,
    )
  })

  it('leaves another refusal the SDK error it is, without the key', () => {
    const refused = toModelError(callError(400), context)
    expect(APICallError.isInstance(refused)).toBe(true)
    expect((refused as APICallError).statusCode).toBe(400)
    expect(JSON.stringify(refused)).not.toContain(KEY)
  })

  it('removes the key from the message, the URL, the body and the parsed data of the cause', () => {
    const error = toModelError(callError(401), context) as BatonError
    const cause = error.cause as APICallError
    expect(error.message).not.toContain(KEY)
    expect(cause.message).toBe('failed with ***')
    expect(cause.url).not.toContain(KEY)
    expect(cause.responseBody).toContain('bad key ***')
    expect(JSON.stringify(cause.data)).not.toContain(KEY)
  })

  it('hands back what is not a provider HTTP error unchanged', () => {
    const abort = new DOMException('aborted', 'AbortError')
    expect(toModelError(abort, context)).toBe(abort)
    const plain = new Error('boom')
    expect(toModelError(plain, context)).toBe(plain)
  })
})

describe('toStreamError', () => {
  it('types an in-stream error event as a stream that broke off, without the key', () => {
    const error = toStreamError(
      { type: 'api_error', message: `oops ${KEY}` },
      context,
    ) as BatonError
    expect(error).toBeInstanceOf(ModelUnavailableError)
    expect(error.details).toMatchObject({ midStream: true, attempts: 1 })
    expect(error.message).toContain('api_error: oops ***')
    expect(JSON.stringify(error.cause)).not.toContain(KEY)
  })
})
