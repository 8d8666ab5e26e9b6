import { APICallError } from '@ai-sdk/provider'
import { RetryError } from 'ai'
import { BatonError } from '../errors/baton-error'
import { redactUrl } from '../errors/redact-url'
import { socketFailureOf } from '../errors/socket-failure'
import { ModelAuthError, ModelRateLimitedError, ModelUnavailableError } from './model-errors'

export type ModelErrorContext = {
  /** The `provider:model-id` that was called. */
  ref: string
  provider: string
  /** The variable that holds the provider's key, named by an auth error. */
  variable?: string | undefined
  /** Values that must never appear in an error (the configured keys). */
  secrets: readonly string[]
}

/**
 * Turns what a provider call threw, after the AI SDK's retries, into a Baton error: a 401 or
 * 403 is a `ModelAuthError`, a 429 a `ModelRateLimitedError`, any other retryable failure (5xx,
 * 408, 409, no answer) a `ModelUnavailableError`; another refusal (a 400, a 404) stays the
 * SDK's `APICallError`. Every credential is removed from what is kept, the cause included.
 * Anything that is not a provider's HTTP error (an abort, a Baton error) comes back unchanged.
 *
 * @example
 * throw toModelError(error, { ref: 'openai:gpt-4o-mini', provider: 'openai', variable: 'OPENAI_API_KEY', secrets: [key] })
 */
export function toModelError(error: unknown, context: ModelErrorContext): unknown {
  const errors = RetryError.isInstance(error) ? error.errors : [error]
  const last = errors.at(-1)
  if (!APICallError.isInstance(last)) return error
  const cause = withoutSecrets(last, context.secrets)
  // No answer: the socket's own message names where the provider is (a self-hosted one's
  // address); the reason says why only, and the cause keeps where, for the log.
  const socket = last.statusCode === undefined ? socketFailureOf(last) : undefined
  const facts = {
    ref: context.ref,
    provider: context.provider,
    attempts: errors.length,
    status: last.statusCode,
    reason: socket ? `cannot connect: ${socket}` : cause.message,
    cause,
  }
  if (last.statusCode === 401 || last.statusCode === 403) {
    return new ModelAuthError({ ...facts, variable: context.variable })
  }
  if (last.statusCode === 429) {
    return new ModelRateLimitedError({
      ...facts,
      retryAfterSeconds: retryAfterSeconds(last.responseHeaders),
    })
  }
  if (last.isRetryable) return new ModelUnavailableError(facts)
  return cause
}

/**
 * Turns the error part of a stream that had started (Anthropic's `error` event, an OpenAI
 * `error` chunk) into a `ModelUnavailableError` with `details.midStream`; an HTTP error the SDK
 * raised goes through `toModelError`, and a Baton error or an abort stays as it is.
 *
 * @example
 * toStreamError({ type: 'overloaded_error', message: 'Overloaded' }, context) // MODEL_UNAVAILABLE
 */
export function toStreamError(error: unknown, context: ModelErrorContext): unknown {
  if (BatonError.isInstance(error) || APICallError.isInstance(error)) {
    return toModelError(error, context)
  }
  if (error instanceof Error && error.name === 'AbortError') return error
  const { scrub, scrubValue } = scrubbers(context.secrets)
  const { type, message } = (error ?? {}) as { type?: unknown; message?: unknown }
  const said = typeof message === 'string' ? message : String(error)
  return new ModelUnavailableError({
    ref: context.ref,
    provider: context.provider,
    attempts: 1,
    status: undefined,
    reason: scrub(typeof type === 'string' ? `${type}: ${said}` : said),
    midStream: true,
    cause: error instanceof Error ? scrub(error.message) : scrubValue(error),
  })
}

function scrubbers(secrets: readonly string[]) {
  // Very short values would blank out ordinary words; real keys are far longer.
  const hidden = secrets.filter((secret) => secret.length >= 4)
  const scrub = (text: string) =>
    hidden.reduce((result, secret) => result.split(secret).join('***'), text)
  const scrubValue = (value: unknown): unknown => {
    if (value === undefined) return undefined
    try {
      return JSON.parse(scrub(JSON.stringify(value)))
    } catch {
      // Not JSON (a cycle, a bigint): dropped rather than kept with a key in it.
      return undefined
    }
  }
  return { scrub, scrubValue }
}

/** A copy of the SDK's error with every secret replaced, in its text and in its data. */
function withoutSecrets(error: APICallError, secrets: readonly string[]): APICallError {
  const { scrub, scrubValue } = scrubbers(secrets)
  return new APICallError({
    message: scrub(error.message),
    url: scrub(redactUrl(error.url)),
    requestBodyValues: scrubValue(error.requestBodyValues),
    ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
    ...(error.responseHeaders ? { responseHeaders: error.responseHeaders } : {}),
    ...(error.responseBody === undefined ? {} : { responseBody: scrub(error.responseBody) }),
    // A connection failure's own cause (ECONNREFUSED...) names a host, never a key.
    ...(error.statusCode === undefined && error.cause !== undefined ? { cause: error.cause } : {}),
    isRetryable: error.isRetryable,
    data: scrubValue(error.data),
  })
}

/** The wait a 429 asked for, in seconds (`retry-after-ms`, `retry-after` seconds or HTTP-date). */
function retryAfterSeconds(headers: Record<string, string> | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.['retry-after-ms'] ?? '')
  if (Number.isFinite(milliseconds)) return milliseconds / 1000
  const value = headers?.['retry-after']
  if (!value) return undefined
  const seconds = Number.parseFloat(value)
  if (Number.isFinite(seconds)) return seconds
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}
