import { RecencyList, type RecencyNode } from '../bus/recency-list'
import type { Envelope } from '../envelope/envelope'
import type { Escalation } from './escalation'
import { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'

export interface Chain extends RecencyNode<Chain> {
  correlationId: string
  /** The next hop number: every hop below it has been used. */
  next: number
  /** The highest hop number that may travel. */
  limit: number
  status: 'active' | 'escalated' | 'stopped'
  /**
   * The messages admitted in this chain, oldest first: they are forgotten with it, its path is
   * theirs, and the last is what a forward or reply usually answers. Each is known at most
   * `maxAgeMs` after it was admitted.
   */
  messages: Envelope[]
  /** When each of `messages` was admitted (same index): numbers in one array, not an object each. */
  admittedAt: number[]
  escalationIds: string[]
  openEscalationId: string | undefined
  lastActivityAt: number
}

export type Held = { escalation: Escalation; heldMessage: Envelope; heldHop: number }

export type MemoryChainsOptions = {
  maxHops: number
  /** Conversations idle this long are forgotten. */
  maxAgeMs: number
  /** At most this many conversations are tracked; the least recently active go first. */
  maxCorrelations: number
  now: () => number
}

/** The chains of one memory loop guard, and what it knows of each; see `createMemoryChains`. */
export type MemoryChains = ReturnType<typeof createMemoryChains>

/**
 * The conversations one memory loop guard tracks: each chain's hop count and state, the
 * messages it admitted and the escalations it holds, bounded by age and by the number of
 * conversations (the least recently active go first, in amortized O(1) per message).
 *
 * @example
 * const store = createMemoryChains({ maxHops: 3, maxAgeMs: 3_600_000, maxCorrelations: 10_000, now: Date.now })
 * const chain = store.touch('corr-1')
 */
export function createMemoryChains({
  maxHops,
  maxAgeMs,
  maxCorrelations,
  now,
}: MemoryChainsOptions) {
  // Past the limit, a tenth of it goes at once, so eviction is amortized O(1) per message.
  const evictTo = Math.max(0, maxCorrelations - Math.ceil(maxCorrelations / 10))
  const chains = new Map<string, Chain>()
  // Recency order, oldest first, so the chains to forget are found without scanning.
  const recency = new RecencyList<Chain>()
  // Each admitted message's id, to its chain: the chain holds the message and when it was
  // admitted, so a message costs the guard one map entry and no object of its own.
  const admitted = new Map<string, Chain>()
  const held = new Map<string, Held>()

  const alive = (lastActivityAt: number, at: number) => lastActivityAt >= at - maxAgeMs

  // `at` defaults to now; an admission reads the clock once and passes it to each step.
  function touch(correlationId: string, at: number = now()): Chain {
    let chain = chains.get(correlationId)
    if (chain && !alive(chain.lastActivityAt, at)) {
      drop(chain)
      chain = undefined
    }
    if (!chain) {
      chain = {
        correlationId,
        next: 0,
        limit: maxHops,
        status: 'active',
        messages: [],
        admittedAt: [],
        escalationIds: [],
        openEscalationId: undefined,
        lastActivityAt: 0,
        newer: undefined,
        older: undefined,
      }
      chains.set(correlationId, chain)
    }
    chain.lastActivityAt = at
    recency.touch(chain)
    prune(at, chain)
    return chain
  }

  // Drops chains idle past maxAgeMs (they are oldest first) and, past maxCorrelations, a
  // batch of the least recently active; never `keep`, the chain being touched.
  function prune(at: number, keep: Chain): void {
    let over = chains.size > maxCorrelations
    for (let chain = recency.oldest; chain && chain !== keep; chain = recency.oldest) {
      if (over && chains.size <= evictTo) over = false
      if (!over && alive(chain.lastActivityAt, at)) break
      drop(chain)
    }
  }

  function drop(chain: Chain): void {
    chains.delete(chain.correlationId)
    recency.remove(chain)
    forget(chain)
  }

  function forget(chain: Chain): void {
    for (const message of chain.messages) {
      // Only its own: an id recorded again in a newer chain belongs to that one now.
      if (admitted.get(message.id) === chain) admitted.delete(message.id)
    }
    for (const id of chain.escalationIds) held.delete(id)
  }

  function record(chain: Chain, envelope: Envelope, at: number = now()): void {
    chain.messages.push(envelope)
    chain.admittedAt.push(at)
    admitted.set(envelope.id, chain)
  }

  // What is known of a message: only while its chain is alive and it is younger than maxAgeMs.
  function lookup(envelopeId: string, at: number = now()): Envelope | undefined {
    const chain = admitted.get(envelopeId)
    if (!chain || !alive(chain.lastActivityAt, at)) return undefined
    // Newest first: what is looked up is usually recent, and a chain is as long as its hops.
    const { messages } = chain
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      if (messages[index]!.id === envelopeId) {
        return alive(chain.admittedAt[index]!, at) ? messages[index] : undefined
      }
    }
    return undefined
  }

  /**
   * `lookup(envelopeId)` when `chain` was just touched (so it is alive): when the message is
   * the one it admitted last, as what a forward or reply answers usually is, no map is asked.
   */
  function lookupIn(chain: Chain, envelopeId: string, at: number): Envelope | undefined {
    const last = chain.messages.length - 1
    if (
      last >= 0 &&
      chain.messages[last]!.id === envelopeId &&
      alive(chain.admittedAt[last]!, at)
    ) {
      return chain.messages[last]
    }
    // Not its last, or too old: an id past its age may have been recorded again elsewhere.
    return lookup(envelopeId, at)
  }

  function find(escalationId: string): Held & { chain: Chain } {
    const entry = held.get(escalationId)
    const chain = entry && chains.get(entry.escalation.correlationId)
    if (!entry || !chain || !alive(chain.lastActivityAt, now())) {
      throw new EscalationNotFoundError(escalationId)
    }
    if (entry.escalation.status !== 'open') {
      throw new EscalationResolvedError(escalationId, entry.escalation.status)
    }
    return { ...entry, chain }
  }

  // Marks an open escalation resolved and frees its chain from waiting on it.
  function resolve(
    escalationId: string,
    changes: Pick<Escalation, 'status' | 'extraHops' | 'reason'>,
  ): { entry: Held; escalation: Escalation; chain: Chain } {
    const entry = find(escalationId)
    const escalation: Escalation = {
      ...entry.escalation,
      ...changes,
      resolvedAt: new Date(now()).toISOString(),
    }
    held.set(escalationId, { ...entry, escalation })
    const chain = touch(escalation.correlationId)
    chain.openEscalationId = undefined
    return { entry, escalation, chain }
  }

  function clear(): void {
    recency.clear()
    chains.clear()
    admitted.clear()
    held.clear()
  }

  return {
    maxHops,
    now,
    chains,
    admitted,
    held,
    alive,
    touch,
    record,
    lookup,
    lookupIn,
    resolve,
    clear,
  }
}
