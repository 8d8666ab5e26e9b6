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
