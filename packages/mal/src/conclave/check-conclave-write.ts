import { ConclaveLimitError } from './conclave-errors'
import type { ConclaveLimits } from './conclave-types'

export const DEFAULT_CONCLAVE_LIMITS: Required<ConclaveLimits> = {
  maxKeys: 1000,
  maxValueBytes: 64 * 1024,
  maxKeyLength: 256,
}

/**
 * Checks a write against the bounds that do not depend on the store's state (key length and
 * value size) and returns the value's JSON; the key count is the store's to check.
 *
 * @example
 * const json = checkConclaveWrite('draft', { text: 'hi' }, DEFAULT_CONCLAVE_LIMITS)
 */
export function checkConclaveWrite(
  key: string,
  value: unknown,
  limits: Required<ConclaveLimits>,
): string {
  if (key.length === 0 || key.length > limits.maxKeyLength) {
    throw new ConclaveLimitError({
      key: key.slice(0, 64),
      limit: 'the key length',
      max: limits.maxKeyLength,
      actual: key.length,
    })
  }
  const json = JSON.stringify(value ?? null)
  const bytes = Buffer.byteLength(json)
  if (bytes > limits.maxValueBytes) {
    throw new ConclaveLimitError({
      key,
      limit: 'the value size in bytes',
      max: limits.maxValueBytes,
      actual: bytes,
    })
  }
  return json
}
