import { BatonError, parseWith } from '@baton/core'
import { buildEnvelope, type EnvelopeDraft } from '../envelope/build-envelope'
import { Envelope } from '../envelope/envelope'
import { freezeEnvelope, isCheckedEnvelope } from '../envelope/freeze-envelope'
import { isCompleteEnvelope } from '../envelope/is-envelope'
import { SendInput } from '../envelope/send-input'
import { ADMIT_NOW, admitsNow } from '../loop-guard/admit-now'
import type { Escalation } from '../loop-guard/escalation'
import type { Admission, GuardHistory, LoopGuard } from '../loop-guard/loop-guard'
import { LoopGuardError } from '../loop-guard/loop-guard-error'
import { MessageConflictError } from '../loop-guard/message-conflict-error'
import { sameMessage } from '../loop-guard/same-message'
import { BoundedIdSet } from '../rails/bounded-id-set'
import { createInProcessRail } from '../rails/create-in-process-rail'
import type { Transport } from '../rails/transport'
import { TransportError } from '../rails/transport-error'
import { signEnvelope } from '../signatures/sign-envelope'
import type { SignatureEntry } from '../signatures/signature-freshness'
import { answering, forwardDraft, replyDraft } from './answer-draft'
import { busLoopGuard } from './bus-loop-guard'
import { BusRecords } from './bus-records'
import { createEmitter, type Emitter } from './create-emitter'
import { DeliveryError } from './delivery-error'
import type { MessageBus, MessageBusEvents, MessageBusOptions, MessageHandler } from './message-bus'
import { MessageBusClosedError } from './message-bus-closed-error'
import { MessageBusSettings, Subscription } from './message-bus-settings'
import { DEFAULT_RETENTION } from './message-history'
import { RailLink } from './rail-link'
import { Subscribers } from './subscribers'
import { createEnvelopeVerifier, type VerifyEnvelope } from './verify-envelope'

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
  readonly #records: BusRecords
  readonly #subscribers: Subscribers
  readonly #rail: RailLink
  readonly #verify: VerifyEnvelope | undefined
  // A guard that decides in memory is asked synchronously: no promise per message.
  readonly #admitNow: ((envelope: Envelope, fresh?: boolean) => Admission) | undefined
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
    this.#verify = createEnvelopeVerifier(options, this.#now)
    const { loopGuard, owned } = busLoopGuard(options.loopGuard, retention, this.#now)
    this.loopGuard = loopGuard
    this.#ownsLoopGuard = owned
    this.#records = new BusRecords({ options, retention, now: this.#now, events: this.#events })
    this.#admitNow = admitsNow(loopGuard)
      ? (envelope, fresh) => loopGuard[ADMIT_NOW](envelope, fresh)
      : undefined
    this.#unwatch = this.loopGuard.watch?.((escalation) => this.#records.learn(escalation))
    this.transport = options.transport ?? createInProcessRail()
    this.#rail = new RailLink({
      transport: this.transport,
      loopGuard,
      records: this.#records,
      subscribers: this.#subscribers,
      delivered: new BoundedIdSet(retention.maxMessages),
      verify: this.#verify,
      isClosed: () => this.#closed,
    })
    this.#started = this.transport.start((raw) => this.#rail.receive(raw))
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
    return this.#send(answering(previous, forwardDraft(previous, to, content)))
  }

  async reply(message: Envelope, content: string): Promise<Envelope> {
    this.#assertOpen('reply to a message')
    const previous = this.#check(message, 'message to reply to')
    return this.#send(answering(previous, replyDraft(previous, content)))
  }

  subscribe(agentId: string, handler: MessageHandler): () => void {
    this.#assertOpen('subscribe')
    parseWith(Subscription, { agentId, handler }, 'subscription')
    return this.#subscribers.add(agentId, handler, () => this.#closed)
  }

  history(correlationId: string): Envelope[] {
    return this.#records.history(correlationId)
  }

  correlations(): string[] {
    return this.#records.correlations()
  }

  hops(correlationId: string): number {
    return this.#records.hops(correlationId)
  }

  escalations(): Escalation[] {
    return this.#records.escalations()
  }

  async escalation(escalationId: string): Promise<Escalation | undefined> {
    this.#assertOpen('look up an escalation')
    return this.#askGuard(`look up escalation "${escalationId}"`, () =>
      this.loopGuard.escalation(escalationId),
    )
  }

  async allow(escalationId: string, extraHops: number): Promise<Escalation> {
    this.#assertOpen('allow an escalation')
    const { escalation, heldMessage } = await this.#askGuard(
      `allow escalation "${escalationId}"`,
      () => this.loopGuard.allow({ escalationId, extraHops }),
    )
    this.#records.learn(escalation)
    this.#records.noteHops(heldMessage.correlationId, heldMessage.hop)
    await this.#rail.publish(this.#check(heldMessage, 'held message'))
    return escalation
  }

  async stop(escalationId: string, reason: string): Promise<Escalation> {
    this.#assertOpen('stop an escalation')
    const escalation = await this.#askGuard(`stop escalation "${escalationId}"`, () =>
      this.loopGuard.stop({ escalationId, reason }),
    )
    this.#records.learn(escalation)
    return escalation
  }

  async restore(history: GuardHistory): Promise<void> {
    this.#assertOpen('restore the loop guard')
    await this.loopGuard.restore?.(history)
    const correlations = new Set(history.messages.map((message) => message.correlationId))
    for (const correlationId of correlations) {
      this.#records.noteHops(correlationId, await this.loopGuard.hops(correlationId))
    }
    // Known again, not new: nobody is notified a second time.
    for (const escalation of history.escalations) this.#records.relearn(escalation)
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

  // Builds, signs when the bus holds the sender's key, and dispatches; without a key there is
  // nothing to wait for before the guard.
  #send(draft: EnvelopeDraft): Envelope | Promise<Envelope> {
    const envelope = buildEnvelope(draft, this.#now)
    const account = this.#options.resolveAccount?.(envelope.from.agentId)
    if (!account) return this.#dispatch(envelope, 'local', true)
    return signEnvelope(envelope, account).then((signed) =>
      this.#dispatch(freezeEnvelope(signed), 'local'),
    )
  }

  // Parses an envelope that comes from outside the bus, once; the bus's own pass untouched.
  #check(envelope: Envelope, what: string): Envelope {
    if (isCheckedEnvelope(envelope)) return envelope
    return freezeEnvelope(parseWith(Envelope, envelope, what))
  }

  // Synchronous when nothing needs waiting for (no signature to check, a started rail that
  // takes envelopes at once, a guard that decides in memory): the default bus makes no
  // promise of its own per message. A refusal is thrown; its callers are async, so the
  // caller sees the same rejection either way.
  // `fresh`: built just now by `#send`, its id new (see `ADMIT_NOW`).
  #dispatch(
    envelope: Envelope,
    entry: SignatureEntry,
    fresh = false,
  ): Envelope | Promise<Envelope> {
    if (envelope.from.agentId === envelope.to.agentId) {
      throw LoopGuardError.selfSend(envelope)
    }
    if (this.#verify || !this.#ready || !this.#admitNow || !this.#rail.publishesNow) {
      return this.#dispatchLater(envelope, entry)
    }
    const admission = this.#admitNow(envelope, fresh)
    if (admission.status !== 'admitted') return this.#refused(envelope, admission)
    this.#records.noteHops(envelope.correlationId, admission.hops)
    const pending = this.#rail.publishNow(envelope)
    return pending ? pending.then(() => envelope) : envelope
  }

  async #dispatchLater(envelope: Envelope, entry: SignatureEntry): Promise<Envelope> {
    if (this.#verify) await this.#verify(envelope, entry)
    if (!this.#ready) await this.ready()
    const admission = this.#admitNow?.(envelope) ?? (await this.#admit(envelope))
    if (admission.status !== 'admitted') return this.#refused(envelope, admission)
    this.#records.noteHops(envelope.correlationId, admission.hops)
    await this.#rail.publish(envelope)
    return envelope
  }

  // What a message the guard did not admit comes to: a retry of one admitted is answered
  // with it (delivered once, not again); anything else is thrown.
  #refused(envelope: Envelope, admission: Exclude<Admission, { status: 'admitted' }>): Envelope {
    switch (admission.status) {
      case 'duplicate':
        return envelope
      case 'conflict':
        throw new MessageConflictError(envelope, admission.problem, admission.recorded)
      case 'escalated':
      case 'waiting': {
        this.#records.learn(admission.escalation)
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

  /** The loop guard's verdict (see `#askGuard`): a guard that cannot be asked delivers nothing. */
  #admit(envelope: Envelope): Promise<Admission> {
    return this.#askGuard(
      `admit envelope "${envelope.id}"`,
      () => this.loopGuard.admit(envelope),
      envelope.id,
    )
  }

  /**
   * Asks the loop guard. A guard that cannot be asked (its Redis is away) fails the call as the
   * rail would, `TRANSPORT_FAILED`, naming what was asked: the caller can try again, and nothing
   * was done. The guard's own refusals (`ESCALATION_NOT_FOUND`, …) pass as they are.
   */
  async #askGuard<T>(what: string, ask: () => Promise<T>, envelopeId?: string): Promise<T> {
    try {
      return await ask()
    } catch (error) {
      if (BatonError.isInstance(error)) throw error
      throw new TransportError({
        transport: this.transport.name,
        message: `the loop guard could not ${what}`,
        ...(envelopeId ? { envelopeId } : {}),
        cause: error,
      })
    }
  }

  #handlerFailed(envelope: Envelope, error: unknown): void {
    this.#records.report(
      new DeliveryError({
        message: `A subscriber of agent "${envelope.to.agentId}" failed on envelope "${envelope.id}".`,
        envelope,
        agentId: envelope.to.agentId,
        cause: error,
      }),
    )
  }

  #assertOpen(action: string): void {
    if (this.#closed) throw new MessageBusClosedError(action)
  }
}
