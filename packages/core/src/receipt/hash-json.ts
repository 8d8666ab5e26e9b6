import { keccak256, toHex } from 'viem'
import { canonicalJson } from '../registration/canonical-json'

export type Hash = `0x${string}`

/**
 * The keccak-256 of a value's canonical JSON (keys sorted at every depth; `undefined` is
 * `null`, as a JSON value has no `undefined`): one hash per value, wherever it is computed.
 *
 * @example
 * hashJson({ b: 1, a: 2 }) === hashJson({ a: 2, b: 1 }) // true
 */
export function hashJson(value: unknown): Hash {
  return keccak256(toHex(canonicalJson(value === undefined ? null : value)))
}
