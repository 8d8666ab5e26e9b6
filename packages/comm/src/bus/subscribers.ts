import type { Envelope } from '../envelope/envelope'
import { withEnvelopeContext } from '../telemetry/trace-metadata'
import type { MessageHandler } from './message-bus'

export type SubscribersOptions = {
  /** The first handler of an agent was added: its envelopes are now wanted. */
  onFirst(agentId: string): void
  /** The last handler of an agent was removed. */
  onLast(agentId: string): void
  /** A handler threw, or its promise rejected. */
  onFailed(envelope: Envelope, error: unknown): void
  /** A handler's promise, until it settles (so `settled()` can wait for it). */
  track(pending: Promise<void>): () => void
}

/**
 * The handlers subscribed to each agent's envelopes, and their delivery: each handler of the
 * recipient is called; a failure is reported, never thrown at the sender.
 *
 * @example
 * const subscribers = new Subscribers({ onFirst, onLast, onFailed, track })
 * const unsubscribe = subscribers.add('analyst', (message) => console.log(message.content))
 * subscribers.deliver(envelope)
 */
export class Subscribers {
  readonly #handlers = new Map<string, Set<MessageHandler>>()
  readonly #options: SubscribersOptions

  constructor(options: SubscribersOptions) {
    this.#options = options
  }

  /** Adds `handler` for `agentId`; returns what removes it. */
  add(agentId: string, handler: MessageHandler, isClosed: () => boolean): () => void {
    let handlers = this.#handlers.get(agentId)
    if (!handlers) {
      handlers = new Set()
      this.#handlers.set(agentId, handlers)
      this.#options.onFirst(agentId)
    }
    handlers.add(handler)
    return () => {
      handlers.delete(handler)
      if (handlers.size === 0 && this.#handlers.get(agentId) === handlers) {
        this.#handlers.delete(agentId)
        if (!isClosed()) this.#options.onLast(agentId)
      }
    }
  }

  deliver(envelope: Envelope): void {
    const handlers = this.#handlers.get(envelope.to.agentId)
    if (!handlers) return
    for (const handler of handlers.size === 1 ? handlers : [...handlers]) {
      try {
        // The handler's work joins the sender's trace (the envelope carries its context); with
        // none to join, no closure is made for it.
        const result = envelope.metadata
          ? withEnvelopeContext(envelope.metadata, () => handler(envelope))
          : handler(envelope)
        if (result && typeof result.then === 'function') {
          let untrack = () => {}
          const pending: Promise<void> = result
            .then(undefined, (error: unknown) => this.#options.onFailed(envelope, error))
            .finally(() => untrack())
          untrack = this.#options.track(pending)
        }
      } catch (error) {
        this.#options.onFailed(envelope, error)
      }
    }
  }

  clear(): void {
    this.#handlers.clear()
  }
}
