import type { Envelope } from './envelope'

// An envelope that was built valid or parsed once. The mark is its class, not a property of
// its own: a copy (`{ ...m }`) or JSON does not carry it, so a copy is parsed again, and
// marking costs no property definition per message (a `defineProperty` per envelope was most
// of the cost of building one). Its fields are the envelope's own, enumerable, in the order
// they were given.
class CheckedEnvelope {}

/**
 * A blank envelope to fill in and hand to `freezeEnvelope`: the bus's own builder starts from
 * it, so marking the result needs no copy.
 *
 * @example
 * const envelope = blankEnvelope()
 * envelope.id = newId('msg') // ... every field, then freezeEnvelope(envelope)
 */
export function blankEnvelope(): Envelope {
  return new CheckedEnvelope() as Envelope
}

/**
 * Freezes an envelope (and the objects it holds) that was built valid or parsed, and marks it
 * as checked, so the bus never parses it again and a subscriber cannot change it. One made by
 * `blankEnvelope` is frozen as it is; any other is copied first (its own fields, in order), so
 * use what it returns.
 *
 * @example
 * freezeEnvelope(envelope).content = 'x' // throws in strict mode
 */
export function freezeEnvelope(envelope: Envelope): Envelope {
  const marked =
    envelope instanceof CheckedEnvelope
      ? envelope
      : (Object.assign(new CheckedEnvelope(), envelope) as Envelope)
  Object.freeze(marked.from)
  Object.freeze(marked.to)
  if (marked.metadata) Object.freeze(marked.metadata)
  return Object.freeze(marked)
}

/**
 * True for an envelope `freezeEnvelope` marked: valid, and unchanged since.
 *
 * @example
 * isCheckedEnvelope(buildEnvelope(draft, Date.now)) // true
 * isCheckedEnvelope({ ...envelope }) // false: a copy is checked again
 */
export function isCheckedEnvelope(value: unknown): value is Envelope {
  return value instanceof CheckedEnvelope && Object.isFrozen(value)
}
