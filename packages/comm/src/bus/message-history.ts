import type { Envelope } from '../envelope/envelope'
import { RecencyList, type RecencyNode } from './recency-list'

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

interface Conversation extends RecencyNode<Conversation> {
  correlationId: string
  messages: Envelope[]
  lastActivityAt: number
}

export type HistoryExpiry = {
  /** A whole conversation was dropped. */
  onExpire(correlationId: string, messages: readonly Envelope[]): void
  /** The oldest messages of a conversation that alone outgrew `maxMessages` were dropped. */
  onTrim(correlationId: string, messages: readonly Envelope[]): void
}

/**
 * The bus's bounded memory of conversations. Conversations are kept in order of last
 * activity, so the least recently active one is always first to go; adding a message is
 * amortized O(1), however long the bus runs.
 */
export class MessageHistory {
  readonly #limits: Required<RetentionOptions>
  readonly #now: () => number
  readonly #expiry: HistoryExpiry
  readonly #conversations = new Map<string, Conversation>()
  // Recency order, oldest first: what to drop is found without scanning.
  readonly #recency = new RecencyList<Conversation>()
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
    // One look-up of the id, not two: it was new if the set grew.
    const known = this.#ids.size
    this.#ids.add(envelope.id)
    if (this.#ids.size === known) return false
    const { correlationId } = envelope
    let conversation = this.#conversations.get(correlationId)
    if (!conversation) {
      conversation = {
        correlationId,
        messages: [],
        lastActivityAt: 0,
        newer: undefined,
        older: undefined,
      }
      this.#conversations.set(correlationId, conversation)
    }
    const at = this.#now()
    conversation.messages.push(envelope)
    conversation.lastActivityAt = at
    this.#recency.touch(conversation)
    this.#total += 1
    this.prune(at)
    return true
  }

  get(correlationId: string): readonly Envelope[] {
    return this.#conversations.get(correlationId)?.messages ?? []
  }

  /** Conversation ids, least recently active first. */
  correlationIds(): string[] {
    const ids: string[] = []
    for (let node = this.#recency.oldest; node; node = node.newer) ids.push(node.correlationId)
    return ids
  }

  /**
   * Drops what is past the limits; `add` calls it, a server may also call it on a timer. Past
   * a limit it evicts a batch (down to nine tenths of the limit), not one conversation per
   * message, so a full history costs O(1) amortized per message.
   */
  prune(at: number = this.#now()): void {
    const { maxMessages, maxAgeMs, maxCorrelations } = this.#limits
    const cutoff = at - maxAgeMs
    const messageTarget = maxMessages - Math.floor(maxMessages / 10)
    const correlationTarget = maxCorrelations - Math.floor(maxCorrelations / 10)
    let evicting = this.#total > maxMessages || this.#conversations.size > maxCorrelations
    for (
      let conversation = this.#recency.oldest;
      conversation;
      conversation = this.#recency.oldest
    ) {
      if (
        evicting &&
        this.#total <= messageTarget &&
        this.#conversations.size <= correlationTarget
      ) {
        evicting = false
      }
      if (!evicting && conversation.lastActivityAt >= cutoff) break
      if (this.#conversations.size === 1 && conversation.lastActivityAt >= cutoff) {
        this.#trim(conversation)
        break
      }
      this.#conversations.delete(conversation.correlationId)
      this.#recency.remove(conversation)
      this.#forget(conversation.messages)
      this.#expiry.onExpire(conversation.correlationId, conversation.messages)
    }
  }

  // One conversation alone outgrew the limit: drop a tenth of the limit at once so trimming
  // stays amortized O(1) per message.
  #trim(conversation: Conversation): void {
    const excess = this.#total - this.#limits.maxMessages
    if (excess <= 0) return
    const batch = Math.max(excess, Math.ceil(this.#limits.maxMessages / 10))
    const dropped = conversation.messages.splice(0, batch)
    this.#forget(dropped)
    this.#expiry.onTrim(conversation.correlationId, dropped)
  }

  #forget(messages: readonly Envelope[]): void {
    for (const message of messages) this.#ids.delete(message.id)
    this.#total -= messages.length
  }
}
