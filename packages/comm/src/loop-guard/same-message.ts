import type { Envelope } from '../envelope/envelope'

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

/**
 * The fields of an envelope that make it the message it is, as one string (the Redis guard
 * stores its hash).
 *
 * @example
 * fingerprintOf(envelope) // '["ops","analyst","direct","review",…]'
 */
export function fingerprintOf(envelope: Envelope): string {
  return JSON.stringify([
    envelope.from.agentId,
    envelope.to.agentId,
    envelope.type,
    envelope.content,
    envelope.correlationId,
    envelope.hop,
    envelope.inReplyTo ?? '',
  ])
}
