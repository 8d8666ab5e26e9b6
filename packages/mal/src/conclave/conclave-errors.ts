import { BatonError } from '@baton/core'

/** A compare-and-set write (or delete) whose `ifVersion` is no longer the key's version. */
export class ConclaveConflictError extends BatonError {
  override name = 'ConclaveConflictError'
  readonly key: string
  readonly expected: number
  readonly actual: number
  constructor(options: { key: string; expected: number; actual: number }) {
    super(
      'CONCLAVE_CONFLICT',
      `Conclave key "${options.key}" is at version ${options.actual}, not ${options.expected}: someone wrote it first. Read it again and retry.`,
      { details: { ...options } },
    )
    this.key = options.key
    this.expected = options.expected
    this.actual = options.actual
  }
}

/** A write past a conclave's bounds (too many keys, a value or key too large). */
export class ConclaveLimitError extends BatonError {
  override name = 'ConclaveLimitError'
  constructor(options: { key: string; limit: string; max: number; actual: number }) {
    super(
      'CONCLAVE_LIMIT',
      `Conclave write to "${options.key}" refused: ${options.limit} would be ${options.actual}, at most ${options.max}.`,
      { details: { ...options } },
    )
  }
}
