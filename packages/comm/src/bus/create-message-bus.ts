import { parseWith, ValidationError } from '@baton/core'
import { createEnvelope } from '../envelope/create-envelope'
import { Envelope } from '../envelope/envelope'
import { isCompleteEnvelope } from '../envelope/is-envelope'
import type { SendInput } from '../envelope/send-input'
import { createMemoryLoopGuard } from '../loop-guard/create-memory-loop-guard'
import type { Escalation } from '../loop-guard/escalation'
import { isLoopGuard } from '../loop-guard/is-loop-guard'
import type { LoopGuard } from '../loop-guard/loop-guard'
import { LoopGuardError } from '../loop-guard/loop-guard-error'
import { createInProcessRail } from '../rails/create-in-process-rail'
import type { Transport } from '../rails/transport'
import { TransportError } from '../rails/transport-error'
import { assertEnvelopeSignature } from '../signatures/assert-envelope-signature'
import { signEnvelope } from '../signatures/sign-envelope'
import { createEmitter, type Emitter } from './create-emitter'
import { DeliveryError } from './delivery-error'
import { EscalationBook } from './escalation-book'
import type { MessageBus, MessageBusEvents, MessageBusOptions, MessageHandler } from './message-bus'
import { MessageBusClosedError } from './message-bus-closed-error'
import { MessageBusSettings, Subscription } from './message-bus-settings'
import { DEFAULT_RETENTION, MessageHistory } from './message-history'

/**
 * Creates the A2A message bus: send, forward and reply envelopes, subscribe per agent, and
 * let the loop guard hand runaway chains to a person.
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
  readonly #handlers = new Map<string, Set<MessageHandler>>()
  readonly #delivered = new Set<string>()
  readonly #hops = new Map<string, number>()
  readonly #escalations: EscalationBook
  readonly #pending = new Set<Promise<void>>()
  readonly #started: Promise<void>
  readonly #unwatch: (() => void) | undefined
  #closed = false

  constructor(options: MessageBusOptions) {
    parseWith(MessageBusSettings, options, 'message bus options')
    this.#options = options
    this.#now = options.now ?? Date.now
    this.#events = createEmitter<MessageBusEvents>()
    const retention = { ...DEFAULT_RETENTION, ...options.retention }
    this.#escalations = new EscalationBook(retention.maxCorrelations)
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
        onExpire: (correlationId, messages) => this.#expire(correlationId, messages),
        onTrim: (correlationId, messages) => {
          for (const message of messages) this.#delivered.delete(message.id)
          this.#events.emit('correlation-trimmed', { correlationId, dropped: messages.length })
        },
      },
    })
    this.#unwatch = this.loopGuard.watch?.((escalation) => this.#learn(escalation))
    this.transport = options.transport ?? createInProcessRail()
    this.#started = this.transport.start((raw) => this.#receive(raw))
    // A failed start is reported through `ready()` and every `send`, never as an unhandled rejection.
    this.#started.catch(() => {})
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
    const envelope = isCompleteEnvelope(input)
      ? parseWith(Envelope, input, 'envelope')
      : await this.#signIfPossible(createEnvelope(input as SendInput, { now: this.#now }))
    return this.#dispatch(envelope)
  }

  async forward(
    message: Envelope,
    to: string | { agentId: string },
    content?: string,
  ): Promise<Envelope> {
    this.#assertOpen('forward a message')
    const previous = parseWith(Envelope, message, 'message to forward')
    return this.send({
      from: { agentId: previous.to.agentId },
      to: typeof to === 'string' ? { agentId: to } : { agentId: to.agentId },
      content: content ?? previous.content,
      type: previous.type === 'reply' ? 'direct' : previous.type,
      correlationId: previous.correlationId,
      inReplyTo: previous.id,
      hop: previous.hop + 1,
    })
  }

  async reply(message: Envelope, content: string): Promise<Envelope> {
    this.#assertOpen('reply to a message')
    const previous = parseWith(Envelope, message, 'message to reply to')
    return this.send({
      from: { agentId: previous.to.agentId },
      to: { agentId: previous.from.agentId },
      content,
      type: 'reply',
      correlationId: previous.correlationId,
      inReplyTo: previous.id,
      hop: previous.hop + 1,
    })
  }

  subscribe(agentId: string, handler: MessageHandler): () => void {
    this.#assertOpen('subscribe')
    parseWith(Subscription, { agentId, handler }, 'subscription')
    let handlers = this.#handlers.get(agentId)
    if (!handlers) {
      handlers = new Set()
      this.#handlers.set(agentId, handlers)
      this.transport.listen?.(agentId)
    }
    handlers.add(handler)
    return () => {
      handlers.delete(handler)
      if (handlers.size === 0 && this.#handlers.get(agentId) === handlers) {
        this.#handlers.delete(agentId)
        if (!this.#closed) this.transport.unlisten?.(agentId)
      }
    }
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
    if (!Number.isInteger(extraHops) || extraHops < 1) {
      // 0 would leave the held message undeliverable; a person who wants no more hops stops the chain.
      throw new ValidationError(`allowance for escalation "${escalationId}"`, [
        { path: 'extraHops', message: `expected a whole number ≥ 1, got ${extraHops}` },
      ])
    }
    const { escalation, heldMessage } = await this.loopGuard.allow({ escalationId, extraHops })
    this.#learn(escalation)
    this.#noteHops(heldMessage.correlationId, heldMessage.hop)
    await this.#publish(heldMessage)
    return escalation
  }

  async stop(escalationId: string, reason: string): Promise<Escalation> {
    this.#assertOpen('stop an escalation')
    const escalation = await this.loopGuard.stop({ escalationId, reason })
    this.#learn(escalation)
    return escalation
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
    this.#handlers.clear()
    this.#events.clear()
  }

  async #dispatch(envelope: Envelope): Promise<Envelope> {
    if (envelope.from.agentId === envelope.to.agentId) {
      throw LoopGuardError.selfSend(envelope)
    }
    if (this.#options.requireSignatures) await this.#verify(envelope)
    await this.ready()
    const admission = await this.loopGuard.admit(envelope)
    if (admission.status === 'escalated' || admission.status === 'waiting') {
      this.#learn(admission.escalation)
      throw LoopGuardError.escalated(admission.escalation, admission.status === 'escalated')
    }
    if (admission.status === 'stopped') {
      throw LoopGuardError.stopped(envelope, admission.escalation)
    }
    this.#noteHops(envelope.correlationId, admission.hops)
    await this.#publish(envelope)
    return envelope
  }

  async #publish(envelope: Envelope): Promise<void> {
    try {
      await this.transport.publish(envelope)
    } catch (error) {
      if (error instanceof TransportError) throw error
      throw new TransportError({
        transport: this.transport.name,
        message: `could not take envelope "${envelope.id}"`,
        envelopeId: envelope.id,
        cause: error,
      })
    }
    this.#record(envelope)
  }

  async #receive(raw: unknown): Promise<void> {
    if (this.#closed) return
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
    const envelope = parsed.data
    if (this.#delivered.has(envelope.id)) return
    if (this.#options.requireSignatures) {
      try {
        await this.#verify(envelope)
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
    if (this.#delivered.has(envelope.id)) return
    this.#delivered.add(envelope.id)
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
    const handlers = this.#handlers.get(envelope.to.agentId)
    if (!handlers) return
    for (const handler of [...handlers]) {
      const fail = (error: unknown) =>
        this.#report(
          new DeliveryError({
            message: `A subscriber of agent "${envelope.to.agentId}" failed on envelope "${envelope.id}".`,
            envelope,
            agentId: envelope.to.agentId,
            cause: error,
          }),
        )
      try {
        const result = handler(envelope)
        if (result && typeof result.then === 'function') {
          const pending: Promise<void> = result.then(undefined, fail).finally(() => {
            this.#pending.delete(pending)
          })
          this.#pending.add(pending)
        }
      } catch (error) {
        fail(error)
      }
    }
  }

  #record(envelope: Envelope): void {
    if (this.#history.add(envelope)) this.#events.emit('message', envelope)
  }

  // Escalations reach a bus from its own sends and resolutions and, with a shared guard, from
  // other buses; each new one and each change of status is announced once.
  #learn(escalation: Escalation): void {
    if (!this.#escalations.learn(escalation)) return
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

  #expire(correlationId: string, messages: readonly Envelope[]): void {
    for (const message of messages) this.#delivered.delete(message.id)
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

  async #verify(envelope: Envelope): Promise<void> {
    const { resolveWallet } = this.#options
    await assertEnvelopeSignature(envelope, resolveWallet ?? (() => undefined))
  }

  async #signIfPossible(envelope: Envelope): Promise<Envelope> {
    const account = this.#options.resolveAccount?.(envelope.from.agentId)
    return account ? signEnvelope(envelope, account) : envelope
  }

  #assertOpen(action: string): void {
    if (this.#closed) throw new MessageBusClosedError(action)
  }
}
