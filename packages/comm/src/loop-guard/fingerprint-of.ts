import type { Envelope } from '../envelope/envelope'

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
