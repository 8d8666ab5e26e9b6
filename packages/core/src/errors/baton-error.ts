const marker = Symbol.for('baton.error')

export type BatonErrorOptions = {
  /** Structured facts about the failure (ids, wallets, limits); never credentials. */
  details?: Record<string, unknown>
  /** Extra lines shown under the short message. */
  metaMessages?: string[]
  cause?: unknown
}

/**
 * The base of every error Baton throws. `code` is stable across releases and is what callers
 * (and the server's HTTP mapping) switch on; `shortMessage` is the one-line human summary.
 *
 * @example
 * try {
 *   await registry.ensureRegisteredAgent(wallet)
 * } catch (error) {
 *   if (BatonError.isInstance(error) && error.code === 'UNREGISTERED_AGENT') showSignUp()
 * }
 */
export class BatonError extends Error {
  readonly [marker] = true
  override name = 'BatonError'
  readonly code: string
  readonly shortMessage: string
  readonly details: Record<string, unknown>
  readonly metaMessages: string[] | undefined

  constructor(code: string, shortMessage: string, options: BatonErrorOptions = {}) {
    const meta = options.metaMessages?.length ? `\n\n${options.metaMessages.join('\n')}` : ''
    super(
      `${shortMessage}${meta}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.code = code
    this.shortMessage = shortMessage
    this.details = options.details ?? {}
    this.metaMessages = options.metaMessages
  }

  /** True for any Baton error, even one thrown by another installed copy of this package. */
  static isInstance(error: unknown): error is BatonError {
    return typeof error === 'object' && error !== null && marker in error
  }

  /**
   * Walks the cause chain, starting with this error. Without a predicate it returns the
   * deepest cause; with one, the first error for which it returns true (or null).
   */
  walk(predicate?: (error: unknown) => boolean): unknown {
    let current: unknown = this
    let last: unknown = this
    const seen = new Set<unknown>()
    while (current !== undefined && current !== null && !seen.has(current)) {
      seen.add(current)
      if (predicate?.(current)) return current
      last = current
      current = (current as { cause?: unknown }).cause
    }
    return predicate ? null : last
  }

  toJSON(): { name: string; code: string; message: string; details: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.shortMessage, details: this.details }
  }
}

/** Input that failed a schema at a boundary; `issues` name each field that was wrong. */
export class ValidationError extends BatonError {
  override name = 'ValidationError'
  readonly issues: { path: string; message: string }[]
  constructor(
    what: string,
    issues: { path: string; message: string }[],
    options: BatonErrorOptions = {},
  ) {
    super(
      'VALIDATION_FAILED',
      `Invalid ${what}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
      {
        ...options,
        details: { ...options.details, what, issues },
      },
    )
    this.issues = issues
  }
}
