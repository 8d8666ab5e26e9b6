import type { Envelope } from '../envelope/envelope'
import { SignatureError } from './signature-error'

/** Five minutes: how far a signed envelope's createdAt may be from the bus's clock. */
export const DEFAULT_SIGNATURE_MAX_AGE_MS = 5 * 60 * 1000

/** Where a signed envelope reached the bus: a local send/relay, or a rail. */
export type SignatureEntry = 'local' | 'rail'

const bits: Record<SignatureEntry, number> = { local: 1, rail: 2 }

/**
 * Refuses signed envelopes dated outside a window around now, and remembers the id of every
 * accepted one for as long as it would be fresh, so the same signed envelope is accepted once
 * per entry. (A bus's own envelope may still come back to it once over a rail.)
 */
export class SignatureFreshness {
  readonly #maxAgeMs: number
  readonly #now: () => number
  readonly #seen = new Map<string, number>()
  // Ids in the order they were accepted, with when they can be forgotten.
  readonly #expiries: { id: string; until: number }[] = []
  #head = 0

  constructor(maxAgeMs: number, now: () => number) {
    this.#maxAgeMs = maxAgeMs
    this.#now = now
  }

  /** Throws `SignatureError` (`stale` or `replayed`) or records the envelope as accepted. */
  accept(envelope: Envelope, entry: SignatureEntry): void {
    const now = this.#now()
    this.#evict(now)
    const base = { envelopeId: envelope.id, agentId: envelope.from.agentId }
    const createdAt = Date.parse(envelope.createdAt)
    if (!(Math.abs(now - createdAt) <= this.#maxAgeMs)) {
      throw new SignatureError({
        ...base,
        problem: 'stale',
        createdAt: envelope.createdAt,
        maxAgeMs: this.#maxAgeMs,
      })
    }
    const seen = this.#seen.get(envelope.id) ?? 0
    if (seen & bits[entry]) throw new SignatureError({ ...base, problem: 'replayed' })
    if (seen === 0) this.#expiries.push({ id: envelope.id, until: createdAt + this.#maxAgeMs })
    this.#seen.set(envelope.id, seen | bits[entry])
  }

  // Past its window an envelope is refused as stale anyway, so its id can go.
  #evict(now: number): void {
    while (this.#head < this.#expiries.length) {
      const oldest = this.#expiries[this.#head]
      if (!oldest || oldest.until >= now) break
      this.#seen.delete(oldest.id)
      this.#head += 1
    }
    if (this.#head > 1024 && this.#head * 2 > this.#expiries.length) {
      this.#expiries.splice(0, this.#head)
      this.#head = 0
    }
  }
}
