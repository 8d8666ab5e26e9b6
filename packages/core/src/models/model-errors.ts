import { BatonError } from '../errors/baton-error'

/** A model reference names a provider the registry does not know. */
export class UnknownProviderError extends BatonError {
  override name = 'UnknownProviderError'
  readonly provider: string
  constructor(options: { ref: string; provider: string; known: readonly string[] }) {
    const { ref, provider, known } = options
    super(
      'UNKNOWN_PROVIDER',
      `Unknown model provider "${provider}" in "${ref}". Known providers: ${known.join(', ')}.`,
      { details: { ref, provider, known: [...known] } },
    )
    this.provider = provider
  }
}

/** A built-in provider exists but the environment does not configure it. */
export class ProviderNotConfiguredError extends BatonError {
  override name = 'ProviderNotConfiguredError'
  readonly provider: string
  readonly variable: string
  constructor(options: { ref: string; provider: string; variable: string }) {
    const { ref, provider, variable } = options
    super(
      'PROVIDER_NOT_CONFIGURED',
      `Model provider "${provider}" (for "${ref}") is not configured: set ${variable} in the environment.`,
      { details: { ref, provider, variable } },
    )
    this.provider = provider
    this.variable = variable
  }
}

/** A `[[fail:MESSAGE]]` directive (or a malformed directive) made an offline model call fail. */
export class OfflineModelError extends BatonError {
  override name = 'OfflineModelError'
  constructor(message: string, options: { directive?: string } = {}) {
    super('OFFLINE_MODEL_FAILED', message, { details: { directive: options.directive } })
  }
}

type ModelCallFacts = {
  /** The `provider:model-id` that was called. */
  ref: string
  provider: string
  /** How many HTTP requests were made (1 + the retries). */
  attempts: number
  /** The HTTP status of the last answer; absent when no answer came (connection refused...). */
  status?: number | undefined
  /** What the provider said, with every credential of the call removed. */
  reason: string
  cause?: unknown
}

/**
 * The provider refused the credentials (HTTP 401 or 403). Never retried; names the variable
 * to set and never holds the key.
 */
export class ModelAuthError extends BatonError {
  override name = 'ModelAuthError'
  readonly provider: string
  readonly variable: string | undefined
  constructor(options: ModelCallFacts & { variable?: string | undefined }) {
    const { ref, provider, variable, attempts, status, reason, cause } = options
    const fix = variable ? `set ${variable} to a valid key` : 'check the credentials it expects'
    super(
      'MODEL_AUTH_FAILED',
      `Model provider "${provider}" refused the credentials for "${ref}" (HTTP ${status}): ${fix}. The provider said: ${reason}`,
      { cause, details: { ref, provider, variable, status, attempts } },
    )
    this.provider = provider
    this.variable = variable
  }
}

/** The provider kept answering HTTP 429 (rate limit or quota) until the retries ran out. */
export class ModelRateLimitedError extends BatonError {
  override name = 'ModelRateLimitedError'
  readonly provider: string
  constructor(options: ModelCallFacts & { retryAfterSeconds?: number | undefined }) {
    const { ref, provider, attempts, status, reason, cause, retryAfterSeconds } = options
    super(
      'MODEL_RATE_LIMITED',
      `Model provider "${provider}" rate-limited "${ref}" (HTTP ${status}) on all ${attempts} attempts: ${reason}`,
      { cause, details: { ref, provider, status, attempts, retryAfterSeconds } },
    )
    this.provider = provider
  }
}

/**
 * The provider failed with an error worth retrying (HTTP 5xx, 408, 409, or no answer at all:
 * connection refused, reset) until the retries ran out, or its stream broke off with an error
 * after it had started (`details.midStream`; never retried, as part of the answer was out).
 */
export class ModelUnavailableError extends BatonError {
  override name = 'ModelUnavailableError'
  readonly provider: string
  constructor(options: ModelCallFacts & { midStream?: boolean }) {
    const { ref, provider, attempts, status, reason, cause, midStream } = options
    const answer = midStream
      ? 'its stream broke off'
      : status === undefined
        ? 'no answer'
        : `HTTP ${status}`
    const tries = attempts === 1 ? '' : ` on all ${attempts} attempts`
    super(
      'MODEL_UNAVAILABLE',
      `Model provider "${provider}" failed for "${ref}" (${answer})${tries}: ${reason}`,
      { cause, details: { ref, provider, status, attempts, ...(midStream ? { midStream } : {}) } },
    )
    this.provider = provider
  }
}
