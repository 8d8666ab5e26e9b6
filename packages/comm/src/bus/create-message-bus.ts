import { BatonError, parseWith, ValidationError } from '@baton/core'
import { buildEnvelope, type EnvelopeDraft } from '../envelope/build-envelope'
import { Envelope } from '../envelope/envelope'
import { freezeEnvelope, isCheckedEnvelope } from '../envelope/freeze-envelope'
import { isCompleteEnvelope } from '../envelope/is-envelope'
import { SendInput } from '../envelope/send-input'
import { ADMIT_NOW, admitsNow } from '../loop-guard/admit-now'
import { createMemoryLoopGuard } from '../loop-guard/create-memory-loop-guard'
import type { Escalation } from '../loop-guard/escalation'
import { isLoopGuard } from '../loop-guard/is-loop-guard'
import type { Admission, GuardHistory, LoopGuard } from '../loop-guard/loop-guard'
import { LoopGuardError } from '../loop-guard/loop-guard-error'
import { MessageConflictError } from '../loop-guard/message-conflict-error'
import { sameMessage } from '../loop-guard/same-message'
import { BoundedIdSet } from '../rails/bounded-id-set'
import { createInProcessRail } from '../rails/create-in-process-rail'
import type { Transport } from '../rails/transport'
import { TransportError } from '../rails/transport-error'
import { assertEnvelopeSignature } from '../signatures/assert-envelope-signature'
import { signEnvelope } from '../signatures/sign-envelope'
import {
  DEFAULT_SIGNATURE_MAX_AGE_MS,
  type SignatureEntry,
  SignatureFreshness,
} from '../signatures/signature-freshness'
import { recordGuardEvent } from '../telemetry/guard-span-events'
import { createEmitter, type Emitter } from './create-emitter'
import { DeliveryError } from './delivery-error'
import { EscalationBook } from './escalation-book'
import type { MessageBus, MessageBusEvents, MessageBusOptions, MessageHandler } from './message-bus'
import { MessageBusClosedError } from './message-bus-closed-error'
import { MessageBusSettings, Subscription } from './message-bus-settings'
import { DEFAULT_RETENTION, MessageHistory } from './message-history'
import { recipient } from './recipient'
import { Subscribers } from './subscribers'

/**
 * Creates the A2A message bus: send new messages, relay complete envelopes, forward and reply,
 * subscribe per agent, and let the loop guard hand runaway chains to a person.
 *
 * @example
 * const bus = createMessageBus({ loopGuard: { maxHops: 4 }, onEscalation: (e) => notifyHuman(e) })
 * bus.subscribe('analyst', async (message) => {
 *   await bus.reply(message, 'on it')
 * })
 * await bus.send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'review incidents' })
 */
export function createMessageBus(options: MessageBusOptions = {}): MessageBus {
  return new Bus(options)
}

class Bus implements MessageBus {
  readonly loopGuard: LoopGuard
  readonly transport: Transport
  readonly #options: MessageBusOptions
  readonly #ownsLoopGuard: boolean
  readonly #now: () => number
  readonly #events: Emitter<MessageBusEvents>
  readonly #history: MessageHistory
  readonly #subscribers: Subscribers
  // Ids of envelopes that arrived over a rail, to drop an at-least-once rail's duplicates.
  readonly #delivered: BoundedIdSet
  // Envelopes the guard admitted, while the rail takes them: the in-process rail hands the very
  // object back to this bus before `publish` resolves.
  readonly #admitted = new Set<Envelope>()
  readonly #freshness: SignatureFreshness | undefined
  // A guard that decides in memory is asked synchronously: no promise per message.
  readonly #admitNow: ((envelope: Envelope) => Admission) | undefined
  readonly #hops = new Map<string, number>()
  readonly #escalations: EscalationBook
  readonly #pending = new Set<Promise<void>>()
  readonly #started: Promise<void>
  readonly #unwatch: (() => void) | undefined
  #ready = false
  #closed = false

  constructor(options: MessageBusOptions) {
    parseWith(MessageBusSettings, options, 'message bus options')
    this.#options = options
    this.#now = options.now ?? Date.now
    this.#events = createEmitter<MessageBusEvents>()
    this.#subscribers = new Subscribers({
      onFirst: (agentId) => this.transport.listen?.(agentId),
      onLast: (agentId) => this.transport.unlisten?.(agentId),
      onFailed: (envelope, error) => this.#handlerFailed(envelope, error),
      track: (pending) => {
        this.#pending.add(pending)
        return () => this.#pending.delete(pending)
      },
    })
    const retention = { ...DEFAULT_RETENTION, ...options.retention }
    this.#escalations = new EscalationBook(retention.maxCorrelations)
    this.#delivered = new BoundedIdSet(retention.maxMessages)
    this.#freshness = options.requireSignatures
      ? new SignatureFreshness(options.signatureMaxAgeMs ?? DEFAULT_SIGNATURE_MAX_AGE_MS, this.#now)
      : undefined
    const guard = options.loopGuard
    this.#ownsLoopGuard = !isLoopGuard(guard)
    this.loopGuard = isLoopGuard(guard)
      ? guard
      : createMemoryLoopGuard({
          ...guard,
          maxAgeMs: retention.maxAgeMs,
          maxCorrelations: retention.maxCorrelations,
          now: this.#now,
        })
    this.#history = new MessageHistory({
      retention,
      now: this.#now,
      expiry: {
        onExpire: (correlationId) => this.#expire(correlationId),
        onTrim: (correlationId, messages) => {
          this.#events.emit('correlation-trimmed', { correlationId, dropped: messages.length })
        },
      },
    })
    const loopGuard = this.loopGuard
    this.#admitNow = admitsNow(loopGuard) ? (envelope) => loopGuard[ADMIT_NOW](envelope) : undefined
    this.#unwatch = this.loopGuard.watch?.((escalation) => this.#learn(escalation))
    this.transport = options.transport ?? createInProcessRail()
    this.#started = this.transport.start((raw) => this.#receive(raw))
    this.#started.then(
      () => {
        this.#ready = true
      },
      // A failed start is reported through `ready()` and every `send`, never as an unhandled rejection.
      () => {},
    )
  }

  async ready(): Promise<void> {
    try {
      await this.#started
    } catch (error) {
      if (error instanceof TransportError) throw error
      throw new TransportError({
        transport: this.transport.name,
        message: 'could not start',
        cause: error,
      })
    }
  }

  async send(input: SendInput | Envelope): Promise<Envelope> {
    this.#assertOpen('send a message')
    if (isCompleteEnvelope(input)) return this.relay(input as Envelope)
    const parsed = parseWith(SendInput, input, 'message')
    const draft: EnvelopeDraft = parsed
    if (parsed.inReplyTo !== undefined) {
      // An answer belongs to the conversation of what it answers, whatever a caller leaves out.
      const recorded = await this.loopGuard.recorded?.(parsed.inReplyTo)
      if (recorded) {
        draft.correlationId = parsed.correlationId ?? recorded.correlationId
        draft.hop = parsed.hop ?? recorded.hop + 1
      }
    }
    return this.#send(draft)
  }

  async relay(envelope: Envelope): Promise<Envelope> {
    this.#assertOpen('relay an envelope')
    return this.#dispatch(this.#check(envelope, 'envelope'), 'local')
  }

  async forward(
    message: Envelope,
    to: string | { agentId: string },
    content?: string,
  ): Promise<Envelope> {
    this.#assertOpen('forward a message')
    const previous = this.#check(message, 'message to forward')
    const agentId = typeof to === 'string' ? to : to?.agentId
    if (typeof agentId !== 'string' || agentId === '' || !isOptionalText(content)) {
      throw new ValidationError(`forward of message "${previous.id}"`, [
        typeof agentId !== 'string' || agentId === ''
          ? { path: 'to', message: 'expected an agent id (a non-empty string)' }
          : { path: 'content', message: 'expected a string' },
      ])
    }
    return this.#answer(previous, {
      // Frozen {agentId} objects: the recipient of the message is the sender of the forward.
      from: previous.to,
      to: recipient(agentId),
      content: content ?? previous.content,
      type: previous.type === 'reply' ? 'direct' : previous.type,
    })
  }

  async reply(message: Envelope, content: string): Promise<Envelope> {
    this.#assertOpen('reply to a message')
    const previous = this.#check(message, 'message to reply to')
    if (typeof content !== 'string') {
      throw new ValidationError(`reply to message "${previous.id}"`, [
        { path: 'content', message: 'expected a string' },
      ])
    }
    return this.#answer(previous, {
      from: previous.to,
      to: recipient(previous.from.agentId),
      content,
      type: 'reply',
    })
  }

  subscribe(agentId: string, handler: MessageHandler): () => void {
    this.#assertOpen('subscribe')
    parseWith(Subscription, { agentId, handler }, 'subscription')
    return this.#subscribers.add(agentId, handler, () => this.#closed)
  }

  history(correlationId: string): Envelope[] {
    return [...this.#history.get(correlationId)]
  }

  correlations(): string[] {
    return this.#history.correlationIds()
  }

  hops(correlationId: string): number {
    return this.#hops.get(correlationId) ?? 0
  }

  escalations(): Escalation[] {
    return this.#escalations.list()
  }

  async allow(escalationId: string, extraHops: number): Promise<Escalation> {
    this.#assertOpen('allow an escalation')
    const { escalation, heldMessage } = await this.loopGuard.allow({ escalationId, extraHops })
    this.#learn(escalation)
    this.#noteHops(heldMessage.correlationId, heldMessage.hop)
    await this.#publish(this.#check(heldMessage, 'held message'))
    return escalation
  }

  async stop(escalationId: string, reason: string): Promise<Escalation> {
    this.#assertOpen('stop an escalation')
    const escalation = await this.loopGuard.stop({ escalationId, reason })
    this.#learn(escalation)
    return escalation
  }

  async restore(history: GuardHistory): Promise<void> {
    this.#assertOpen('restore the loop guard')
    await this.loopGuard.restore?.(history)
    const correlations = new Set(history.messages.map((message) => message.correlationId))
    for (const correlationId of correlations) {
      this.#noteHops(correlationId, await this.loopGuard.hops(correlationId))
    }
    // Known again, not new: nobody is notified a second time.
    for (const escalation of history.escalations) this.#escalations.learn(escalation)
  }

  on<Name extends keyof MessageBusEvents>(
    name: Name,
    listener: (payload: MessageBusEvents[Name]) => void,
  ): () => void {
    return this.#events.on(name, listener)
  }

  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending])
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#unwatch?.()
    // In-flight handlers are not awaited: one that never settles must not keep the bus open.
    await this.transport.close()
    if (this.#ownsLoopGuard) await this.loopGuard.close()
    this.#subscribers.clear()
    this.#events.clear()
  }

  // A forward or reply: the correlation and hop come from the message it answers, so an
  // answer can neither leave a held or stopped chain nor make it younger.
  #answer(previous: Envelope, draft: EnvelopeDraft): Promise<Envelope> {
    draft.correlationId = previous.correlationId
    draft.hop = previous.hop + 1
    draft.inReplyTo = previous.id
    return this.#send(draft)
  }

  // Builds, signs when the bus holds the sender's key, and dispatches; without a key there is
  // nothing to wait for before the guard.
  #send(draft: EnvelopeDraft): Promise<Envelope> {
    const envelope = buildEnvelope(draft, this.#now)
    const account = this.#options.resolveAccount?.(envelope.from.agentId)
    if (!account) return this.#dispatch(envelope, 'local')
    return signEnvelope(envelope, account).then((signed) =>
      this.#dispatch(freezeEnvelope(signed), 'local'),
    )
  }

  // Parses an envelope that comes from outside the bus, once; the bus's own pass untouched.
  #check(envelope: Envelope, what: string): Envelope {
    if (isCheckedEnvelope(envelope)) return envelope
    return freezeEnvelope(parseWith(Envelope, envelope, what))
  }

  async #dispatch(envelope: Envelope, entry: SignatureEntry): Promise<Envelope> {
    if (envelope.from.agentId === envelope.to.agentId) {
      throw LoopGuardError.selfSend(envelope)
    }
    if (this.#freshness) await this.#verify(envelope, entry)
    if (!this.#ready) await this.ready()
    const admission = this.#admitNow?.(envelope) ?? (await this.#admit(envelope))
    switch (admission.status) {
      case 'admitted':
        this.#noteHops(envelope.correlationId, admission.hops)
        await this.#publish(envelope)
        return envelope
      case 'duplicate':
        // A retry of a message already admitted: it was delivered once and is not again.
        return envelope
      case 'conflict':
        throw new MessageConflictError(envelope, admission.problem, admission.recorded)
      case 'escalated':
      case 'waiting': {
        this.#learn(admission.escalation)
        const held =
          admission.status === 'escalated' ||
          (admission.escalation.lastMessage.id === envelope.id &&
            sameMessage(admission.escalation.lastMessage, envelope))
        throw LoopGuardError.escalated(admission.escalation, held)
      }
      case 'stopped':
        throw LoopGuardError.stopped(envelope, admission.escalation)
    }
  }

  /**
   * The loop guard's verdict. A guard that cannot be asked (its Redis is away) fails the send
   * as the rail would: `TRANSPORT_FAILED`, nothing delivered.
   */
  async #admit(envelope: Envelope): Promise<Admission> {
    try {
      return await this.loopGuard.admit(envelope)
    } catch (error) {
      if (BatonError.isInstance(error)) throw error
      throw new TransportError({
        transport: this.transport.name,
        message: `the loop guard could not admit envelope "${envelope.id}"`,
        envelopeId: envelope.id,
        cause: error,
      })
    }
  }

  async #publish(envelope: Envelope): Promise<void> {
    this.#admitted.add(envelope)
    try {
      await this.transport.publish(envelope)
    } catch (error) {
      this.#admitted.delete(envelope)
      if (error instanceof TransportError) throw error
      throw new TransportError({
        transport: this.transport.name,
        message: `could not take envelope "${envelope.id}"`,
        envelopeId: envelope.id,
        cause: error,
      })
    }
    // Still here: the rail did not hand it back (it went to other processes), so it is
    // recorded now; one handed back was recorded on receipt.
    if (this.#admitted.delete(envelope)) this.#record(envelope)
  }

  #receive(raw: unknown): Promise<void> {
    if (this.#closed) return DONE
    // The in-process rail hands back the very envelope this bus admitted: it was checked,
    // verified and counted on the way in, and is delivered once, synchronously.
    if (this.#admitted.delete(raw as Envelope)) {
      this.#record(raw as Envelope)
      this.#deliver(raw as Envelope)
      return DONE
    }
    return this.#receiveFromRail(raw)
  }

  async #receiveFromRail(raw: unknown): Promise<void> {
    const parsed = Envelope.safeParse(raw)
    if (!parsed.success) {
      this.#report(
        new DeliveryError({
          message: `An envelope arrived on the ${this.transport.name} rail that is not a valid envelope.`,
          cause: parsed.error,
        }),
      )
      return
    }
    const envelope = freezeEnvelope(parsed.data)
    if (this.#delivered.has(envelope.id)) return
    if (this.#freshness) {
      try {
        await this.#verify(envelope, 'rail')
      } catch (error) {
        this.#report(
          new DeliveryError({
            message: `Envelope "${envelope.id}" arrived on the ${this.transport.name} rail with a signature that does not hold; it was not delivered.`,
            envelope,
            cause: error,
          }),
        )
        return
      }
    }
    if (!this.#delivered.add(envelope.id)) return
    try {
      await this.loopGuard.observe(envelope)
    } catch (error) {
      // The sender's guard already admitted it; a failed count here must not lose the message.
      this.#report(
        new DeliveryError({
          message: `The loop guard could not record envelope "${envelope.id}"; it was delivered anyway.`,
          envelope,
          cause: error,
        }),
      )
    }
    this.#noteHops(envelope.correlationId, envelope.hop)
    this.#record(envelope)
    this.#deliver(envelope)
  }

  #deliver(envelope: Envelope): void {
    this.#subscribers.deliver(envelope)
  }

  #handlerFailed(envelope: Envelope, error: unknown): void {
    this.#report(
      new DeliveryError({
        message: `A subscriber of agent "${envelope.to.agentId}" failed on envelope "${envelope.id}".`,
        envelope,
        agentId: envelope.to.agentId,
        cause: error,
      }),
    )
  }

  #record(envelope: Envelope): void {
    if (this.#history.add(envelope)) this.#events.emit('message', envelope)
  }

  // Escalations reach a bus from its own sends and resolutions and, with a shared guard, from
  // other buses; each new one and each change of status is announced once.
  #learn(escalation: Escalation): void {
    if (!this.#escalations.learn(escalation)) return
    recordGuardEvent(escalation)
    if (escalation.status === 'open') {
      this.#options.onEscalation?.(escalation)
      this.#events.emit('escalation', escalation)
    } else {
      this.#events.emit('escalation-resolved', escalation)
    }
  }

  #noteHops(correlationId: string, hops: number): void {
    if (hops > (this.#hops.get(correlationId) ?? -1)) this.#hops.set(correlationId, hops)
  }

  #expire(correlationId: string): void {
    this.#hops.delete(correlationId)
    this.#escalations.forgetResolved(correlationId)
    this.#events.emit('correlation-expired', { correlationId })
  }

  #report(error: DeliveryError): void {
    try {
      this.#options.onDeliveryError?.(error)
    } finally {
      this.#events.emit('delivery-error', error)
    }
  }

  // The signature must hold before the envelope counts as seen, so forged junk cannot use up
  // the id of a genuine envelope.
  async #verify(envelope: Envelope, entry: SignatureEntry): Promise<void> {
    const { resolveWallet } = this.#options
    await assertEnvelopeSignature(envelope, resolveWallet ?? (() => undefined))
    this.#freshness?.accept(envelope, entry)
  }

  #assertOpen(action: string): void {
    if (this.#closed) throw new MessageBusClosedError(action)
  }
}

const DONE: Promise<void> = Promise.resolve()

function isOptionalText(value: unknown): boolean {
  return value === undefined || typeof value === 'string'
}
