import type { Envelope } from './envelope'

// Marks envelopes that were built valid or parsed once. Not enumerable, so a copy (`{ ...m }`)
// or JSON does not carry it, and a copy is parsed again.
const CHECKED = Symbol('baton.envelope-checked')

/**
 * Freezes an envelope (and the objects it holds) that was built valid or parsed, and marks it
 * as checked, so the bus never parses it again and a subscriber cannot change it.
 *
 * @example
 * freezeEnvelope(envelope).content = 'x' // throws in strict mode
 */
export function freezeEnvelope(envelope: Envelope): Envelope {
  Object.freeze(envelope.from)
  Object.freeze(envelope.to)
  if (envelope.metadata) Object.freeze(envelope.metadata)
  Object.defineProperty(envelope, CHECKED, { value: true })
  return Object.freeze(envelope)
}

/**
 * True for an envelope `freezeEnvelope` marked: valid, and unchanged since.
 *
 * @example
 * isCheckedEnvelope(buildEnvelope(draft, Date.now)) // true
 * isCheckedEnvelope({ ...envelope }) // false: a copy is checked again
 */
export function isCheckedEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && CHECKED in value
}
