import type { Envelope } from '../envelope/envelope'
import type { Escalation } from '../loop-guard/escalation'
import { recordGuardEvent } from '../telemetry/guard-span-events'
import type { Emitter } from './create-emitter'
import type { DeliveryError } from './delivery-error'
import { EscalationBook } from './escalation-book'
import type { MessageBusEvents, MessageBusOptions } from './message-bus'
import { MessageHistory, type RetentionOptions } from './message-history'

export type BusRecordsOptions = {
  /** The bus's options: its `onEscalation` and `onDeliveryError` are called as things happen. */
  options: MessageBusOptions
  retention: Required<RetentionOptions>
  now: () => number
  events: Emitter<MessageBusEvents>
}

/**
 * What one bus knows of its conversations (their messages, the hops each chain made, the
 * escalations) and what it announces about them: each message, each escalation and each change
 * of status once, and every delivery error to `onDeliveryError` and the `delivery-error` event.
 *
 * @example
 * const records = new BusRecords({ options, retention, now: Date.now, events })
 * records.record(envelope) // emits 'message' the first time this envelope is seen
 */
export class BusRecords {
  readonly #options: MessageBusOptions
  readonly #events: Emitter<MessageBusEvents>
  readonly #history: MessageHistory
  readonly #hops = new Map<string, number>()
  readonly #escalations: EscalationBook

  constructor({ options, retention, now, events }: BusRecordsOptions) {
    this.#options = options
    this.#events = events
    this.#escalations = new EscalationBook(retention.maxCorrelations)
    this.#history = new MessageHistory({
      retention,
      now,
      expiry: {
        onExpire: (correlationId) => this.#expire(correlationId),
        onTrim: (correlationId, messages) => {
          this.#events.emit('correlation-trimmed', { correlationId, dropped: messages.length })
        },
      },
    })
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

  record(envelope: Envelope): void {
    if (this.#history.add(envelope)) this.#events.emit('message', envelope)
  }

  // Escalations reach a bus from its own sends and resolutions and, with a shared guard, from
  // other buses; each new one and each change of status is announced once.
  learn(escalation: Escalation): void {
    if (!this.#escalations.learn(escalation)) return
    recordGuardEvent(escalation)
    if (escalation.status === 'open') {
      this.#options.onEscalation?.(escalation)
      this.#events.emit('escalation', escalation)
    } else {
      this.#events.emit('escalation-resolved', escalation)
    }
  }

  /** Known again, not new (a restored history): nobody is notified a second time. */
  relearn(escalation: Escalation): void {
    this.#escalations.learn(escalation)
  }

  noteHops(correlationId: string, hops: number): void {
    if (hops > (this.#hops.get(correlationId) ?? -1)) this.#hops.set(correlationId, hops)
  }

  report(error: DeliveryError): void {
    try {
      this.#options.onDeliveryError?.(error)
    } finally {
      this.#events.emit('delivery-error', error)
    }
  }

  #expire(correlationId: string): void {
    this.#hops.delete(correlationId)
    this.#escalations.forgetResolved(correlationId)
    this.#events.emit('correlation-expired', { correlationId })
  }
}
