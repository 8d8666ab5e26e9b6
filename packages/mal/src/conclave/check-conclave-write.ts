import { ConclaveConflictError, ConclaveLimitError } from './conclave-errors'
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

/**
 * Compare-and-set: refuses a write or delete whose `ifVersion` is not the key's live version
 * (0 for a key that is not there) with `CONCLAVE_CONFLICT`; no `ifVersion`, no check.
 *
 * @example
 * checkIfVersion('draft', options.ifVersion, entry?.version ?? 0)
 */
export function checkIfVersion(key: string, ifVersion: number | undefined, live: number): void {
  if (ifVersion !== undefined && ifVersion !== live) {
    throw new ConclaveConflictError({ key, expected: ifVersion, actual: live })
  }
}

/**
 * Refuses a new key in a keyspace that already holds `keys` keys, the most it may hold, with
 * `CONCLAVE_LIMIT`.
 *
 * @example
 * if (!space.has(key)) checkConclaveRoom(key, space.size, DEFAULT_CONCLAVE_LIMITS)
 */
export function checkConclaveRoom(
  key: string,
  keys: number,
  limits: Required<ConclaveLimits>,
): void {
  if (keys >= limits.maxKeys) {
    throw new ConclaveLimitError({
      key,
      limit: 'the number of keys',
      max: limits.maxKeys,
      actual: keys + 1,
    })
  }
}
