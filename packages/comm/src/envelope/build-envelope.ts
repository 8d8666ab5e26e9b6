import type { Envelope, EnvelopeType, Recipient, Sender } from './envelope'

/** The fields of an envelope a caller chooses; the rest is filled in. Already validated. */
export type EnvelopeDraft = {
  from: Sender
  to: Recipient
  content: string
  type?: EnvelopeType | undefined
  correlationId?: string | undefined
  inReplyTo?: string | undefined
  hop?: number | undefined
}

/**
 * Builds a frozen envelope from a draft that was validated at the boundary (or built by the
 * bus itself), without parsing it again: the hot path of every send and forward.
 *
 * @example
 * const envelope = buildEnvelope({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' }, Date.now)
 */
export function buildEnvelope(draft: EnvelopeDraft, now: () => number): Envelope {
  const envelope: Envelope = {
    id: newId('msg'),
    from: draft.from,
    to: draft.to,
    content: draft.content,
    type: draft.type ?? 'direct',
    correlationId: draft.correlationId ?? newId('corr'),
    hop: draft.hop ?? 0,
    createdAt: isoTime(now()),
  }
  if (draft.inReplyTo !== undefined) envelope.inReplyTo = draft.inReplyTo
  return freezeEnvelope(envelope)
}

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

// Many messages share one millisecond; formatting it once is enough.
let lastTime = Number.NaN
let lastIso = ''
function isoTime(time: number): string {
  if (time !== lastTime) {
    lastIso = new Date(time).toISOString()
    lastTime = time
  }
  return lastIso
}

/**
 * A random, collision-safe id with a readable prefix.
 *
 * @example
 * newId('corr') // 'corr_4f0c…'
 */
export function newId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID()}`
}
