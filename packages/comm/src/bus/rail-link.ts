import { Envelope } from '../envelope/envelope'
import { freezeEnvelope } from '../envelope/freeze-envelope'
import type { LoopGuard } from '../loop-guard/loop-guard'
import type { BoundedIdSet } from '../rails/bounded-id-set'
import { PUBLISH_NOW, publishesNow } from '../rails/publish-now'
import type { Transport } from '../rails/transport'
import { TransportError } from '../rails/transport-error'
import type { BusRecords } from './bus-records'
import { DeliveryError } from './delivery-error'
import type { Subscribers } from './subscribers'
import type { VerifyEnvelope } from './verify-envelope'

export type RailLinkOptions = {
  transport: Transport
  loopGuard: LoopGuard
  records: BusRecords
  subscribers: Subscribers
  /** Ids of envelopes that arrived over the rail, to drop an at-least-once rail's duplicates. */
  delivered: BoundedIdSet
  /** The signature check, when the bus requires signatures. */
  verify: VerifyEnvelope | undefined
  isClosed: () => boolean
}

/**
 * One bus's side of its rail: it hands the rail what the loop guard admitted, and takes in what
 * the rail brings, so that each envelope is recorded and delivered once — whether the rail hands
 * the bus's own envelope back (in-process) or brings another process's.
 *
 * @example
 * const link = new RailLink({ transport, loopGuard, records, subscribers, delivered, verify, isClosed })
 * await transport.start((raw) => link.receive(raw))
 * await link.publish(envelope)
 */
export class RailLink {
  readonly #transport: Transport
  readonly #loopGuard: LoopGuard
  readonly #records: BusRecords
  readonly #subscribers: Subscribers
  readonly #delivered: BoundedIdSet
  readonly #verify: VerifyEnvelope | undefined
  readonly #isClosed: () => boolean
  // Envelopes the guard admitted, while the rail takes them: the in-process rail hands the very
  // object back to this bus before `publish` resolves.
  readonly #admitted = new Set<Envelope>()
  // The one envelope `publishNow` is handing the in-process rail: it comes back synchronously,
  // so a field is enough (a nested publish, from a subscriber, has cleared it by the time the
  // outer one looks).
  #handing: Envelope | undefined
  readonly #publishNow: ((envelope: Envelope) => Promise<void>) | undefined

  constructor(options: RailLinkOptions) {
    this.#transport = options.transport
    this.#loopGuard = options.loopGuard
    this.#records = options.records
    this.#subscribers = options.subscribers
    this.#delivered = options.delivered
    this.#verify = options.verify
    this.#isClosed = options.isClosed
    const transport = this.#transport
    this.#publishNow = publishesNow(transport)
      ? (envelope) => transport[PUBLISH_NOW](envelope)
      : undefined
  }

  /** True when the rail takes an envelope synchronously (`publishNow` may be used). */
  get publishesNow(): boolean {
    return this.#publishNow !== undefined
  }

  /**
   * `publish` for a rail that hands envelopes straight back (see `PUBLISH_NOW`): `undefined`
   * when this bus took the envelope back at once (no promise made); otherwise, as when the
   * rail's one receiver is another bus's, a promise to wait for as `publish`'s. Throws what
   * `publish` would reject with.
   */
  publishNow(envelope: Envelope): Promise<void> | undefined {
    this.#handing = envelope
    let pending: Promise<void>
    try {
      pending = this.#publishNow!(envelope)
    } catch (error) {
      this.#handing = undefined
      throw this.#failed(envelope, error)
    }
    if (this.#handing !== envelope) return undefined
    this.#handing = undefined
    // Not taken back (yet): from here on it is a publish like any other.
    this.#admitted.add(envelope)
    return pending.then(
      () => {
        if (this.#admitted.delete(envelope)) this.#records.record(envelope)
      },
      (error: unknown) => {
        this.#admitted.delete(envelope)
        throw this.#failed(envelope, error)
      },
    )
  }

  async publish(envelope: Envelope): Promise<void> {
    this.#admitted.add(envelope)
    try {
      await this.#transport.publish(envelope)
    } catch (error) {
      this.#admitted.delete(envelope)
      throw this.#failed(envelope, error)
    }
    // Still here: the rail did not hand it back (it went to other processes), so it is
    // recorded now; one handed back was recorded on receipt.
    if (this.#admitted.delete(envelope)) this.#records.record(envelope)
  }

  receive(raw: unknown): Promise<void> {
    if (this.#isClosed()) return DONE
    if (raw === this.#handing && raw !== undefined) {
      this.#handing = undefined
      this.#records.record(raw as Envelope)
      this.#subscribers.deliver(raw as Envelope)
      return DONE
    }
    // The in-process rail hands back the very envelope this bus admitted: it was checked,
    // verified and counted on the way in, and is delivered once, synchronously.
    if (this.#admitted.delete(raw as Envelope)) {
      this.#records.record(raw as Envelope)
      this.#subscribers.deliver(raw as Envelope)
      return DONE
    }
    return this.#receiveFromRail(raw)
  }

  #failed(envelope: Envelope, error: unknown): TransportError {
    if (error instanceof TransportError) return error
    return new TransportError({
      transport: this.#transport.name,
      message: `could not take envelope "${envelope.id}"`,
      envelopeId: envelope.id,
      cause: error,
    })
  }

  async #receiveFromRail(raw: unknown): Promise<void> {
    const parsed = Envelope.safeParse(raw)
    if (!parsed.success) {
      this.#records.report(
        new DeliveryError({
          message: `An envelope arrived on the ${this.#transport.name} rail that is not a valid envelope.`,
          cause: parsed.error,
        }),
      )
      return
    }
    const envelope = freezeEnvelope(parsed.data)
    if (this.#delivered.has(envelope.id)) return
    if (this.#verify) {
      try {
        await this.#verify(envelope, 'rail')
      } catch (error) {
        this.#records.report(
          new DeliveryError({
            message: `Envelope "${envelope.id}" arrived on the ${this.#transport.name} rail with a signature that does not hold; it was not delivered.`,
            envelope,
            cause: error,
          }),
        )
        return
      }
    }
    if (!this.#delivered.add(envelope.id)) return
    try {
      await this.#loopGuard.observe(envelope)
    } catch (error) {
      // The sender's guard already admitted it; a failed count here must not lose the message.
      this.#records.report(
        new DeliveryError({
          message: `The loop guard could not record envelope "${envelope.id}"; it was delivered anyway.`,
          envelope,
          cause: error,
        }),
      )
    }
    this.#records.noteHops(envelope.correlationId, envelope.hop)
    this.#records.record(envelope)
    this.#subscribers.deliver(envelope)
  }
}

const DONE: Promise<void> = Promise.resolve()
