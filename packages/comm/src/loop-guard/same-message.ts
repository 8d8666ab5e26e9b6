import type { Envelope } from '../envelope/envelope'
import { fingerprintOf } from './fingerprint-of'

/**
 * True when two envelopes with one id say the same thing (a retry), false when the id was
 * reused for other content. The signature and `createdAt` are left out: a retry may be re-signed.
 *
 * @example
 * sameMessage(envelope, { ...envelope }) // true
 */
export function sameMessage(left: Envelope, right: Envelope): boolean {
  return fingerprintOf(left) === fingerprintOf(right)
}
