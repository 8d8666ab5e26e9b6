import type { Envelope } from '../envelope/envelope'

// A fixed prefix keeps an envelope signature from being replayed as any other signed text.
const DOMAIN = 'baton-envelope:v1\n'

/**
 * The exact text an envelope's signature covers: the envelope minus `signature` and `metadata`, as JSON
 * with keys sorted at every depth and `undefined` fields left out, after a domain prefix.
 *
 * @example
 * canonicalizeEnvelope(envelope) // 'baton-envelope:v1\n{"content":"hi","correlationId":…}'
 */
export function canonicalizeEnvelope(envelope: Envelope): string {
  // Metadata is the transport's (trace context): a relay may set it without breaking the signature.
  const { signature: _ignored, metadata: _transport, ...unsigned } = envelope
  return DOMAIN + stableStringify(unsigned)
}

function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`
}
