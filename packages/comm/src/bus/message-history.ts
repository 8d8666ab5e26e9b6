import type { Envelope } from '../envelope/envelope'

export type RetentionOptions = {
  /** Messages kept across all conversations (default 10,000). */
  maxMessages?: number
  /** Conversations idle longer than this are dropped (default one hour). */
  maxAgeMs?: number
  /** Conversations kept (default 10,000). */
  maxCorrelations?: number
}

export const DEFAULT_RETENTION = {
  maxMessages: 10_000,
  maxAgeMs: 60 * 60 * 1000,
  maxCorrelations: 10_000,
} as const

type Conversation = { messages: Envelope[]; lastActivityAt: number }

export type HistoryExpiry = {
  /** A whole conversation was dropped. */
  onExpire(correlationId: string, messages: readonly Envelope[]): void
  /** The oldest messages of a conversation that alone outgrew `maxMessages` were dropped. */
  onTrim(correlationId: string, messages: readonly Envelope[]): void
}

/**
 * The bus's bounded memory of conversations. Conversations are kept in order of last
 * activity, so the least recently active one is always first to go; adding a message is
 * amortized O(1).
 */
export class MessageHistory {
  readonly #limits: Required<RetentionOptions>
  readonly #now: () => number
  readonly #expiry: HistoryExpiry
  // Map order is recency order: a conversation that gets a message moves to the end.
  readonly #conversations = new Map<string, Conversation>()
  readonly #ids = new Set<string>()
  #total = 0

  constructor(options: { retention?: RetentionOptions; now: () => number; expiry: HistoryExpiry }) {
    this.#limits = { ...DEFAULT_RETENTION, ...options.retention }
    this.#now = options.now
    this.#expiry = options.expiry
  }

  get size(): number {
    return this.#total
  }

  get correlationCount(): number {
    return this.#conversations.size
  }

  has(envelopeId: string): boolean {
    return this.#ids.has(envelopeId)
  }

  /** Stores an envelope; false when one with its id is already stored. */
  add(envelope: Envelope): boolean {
    if (this.#ids.has(envelope.id)) return false
    const { correlationId } = envelope
    const conversation = this.#conversations.get(correlationId) ?? {
      messages: [],
      lastActivityAt: 0,
    }
    this.#conversations.delete(correlationId)
    conversation.messages.push(envelope)
    conversation.lastActivityAt = this.#now()
    this.#conversations.set(correlationId, conversation)
    this.#ids.add(envelope.id)
    this.#total += 1
    this.prune()
    return true
  }

  get(correlationId: string): readonly Envelope[] {
    return this.#conversations.get(correlationId)?.messages ?? []
  }

  correlationIds(): string[] {
    return [...this.#conversations.keys()]
  }

  /** Drops what is past the limits; `add` calls it, a server may also call it on a timer. */
  prune(): void {
    const { maxMessages, maxAgeMs, maxCorrelations } = this.#limits
    const cutoff = this.#now() - maxAgeMs
    for (const [correlationId, conversation] of this.#conversations) {
      const tooMany = this.#total > maxMessages || this.#conversations.size > maxCorrelations
      if (!tooMany && conversation.lastActivityAt >= cutoff) break
      if (this.#conversations.size === 1 && conversation.lastActivityAt >= cutoff) {
        this.#trim(correlationId, conversation)
        break
      }
      this.#conversations.delete(correlationId)
      this.#forget(conversation.messages)
      this.#expiry.onExpire(correlationId, conversation.messages)
    }
  }

  // One conversation alone outgrew the limit: drop a tenth of the limit at once so trimming
  // stays amortized O(1) per message.
  #trim(correlationId: string, conversation: Conversation): void {
    const excess = this.#total - this.#limits.maxMessages
    if (excess <= 0) return
    const batch = Math.max(excess, Math.ceil(this.#limits.maxMessages / 10))
    const dropped = conversation.messages.splice(0, batch)
    this.#forget(dropped)
    this.#expiry.onTrim(correlationId, dropped)
  }

  #forget(messages: readonly Envelope[]): void {
    for (const message of messages) this.#ids.delete(message.id)
    this.#total -= messages.length
  }
}
