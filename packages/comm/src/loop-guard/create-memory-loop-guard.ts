import { parseWith } from '@baton/core'
import { RecencyList, type RecencyNode } from '../bus/recency-list'
import type { Envelope } from '../envelope/envelope'
import { newId } from '../envelope/new-id'
import { FunctionOption, LoopGuardSettings, PositiveWhole } from '../options/option-schemas'
import { ADMIT_NOW, type AdmitsNow } from './admit-now'
import { assertExtraHops } from './assert-extra-hops'
import { extendPath, hopOf } from './chain-state'
import type { Escalation } from './escalation'
import { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'
import {
  type Admission,
  DEFAULT_MAX_HOPS,
  type GuardHistory,
  type LoopGuard,
  type LoopGuardOptions,
  type MessageRecord,
} from './loop-guard'
import { sameMessage } from './same-message'

export type MemoryLoopGuardOptions = LoopGuardOptions & {
  /** Conversations idle this long are forgotten (default one hour). */
  maxAgeMs?: number
  /** At most this many conversations are tracked; the least recently active go first (default 10,000). */
  maxCorrelations?: number
  now?: () => number
}

const MemoryLoopGuardSettings = LoopGuardSettings.extend({
  maxAgeMs: PositiveWhole.optional(),
  maxCorrelations: PositiveWhole.optional(),
  now: FunctionOption.optional(),
})

interface Chain extends RecencyNode<Chain> {
  correlationId: string
  /** The next hop number: every hop below it has been used. */
  next: number
  /** The highest hop number that may travel. */
  limit: number
  status: 'active' | 'escalated' | 'stopped'
  path: string[]
  /** Ids of the messages admitted in this chain, so they are forgotten with it. */
  ids: string[]
  escalationIds: string[]
  openEscalationId: string | undefined
  lastActivityAt: number
}

/** An admitted message and when; its record lives as long as its chain, at most `maxAgeMs`. */
type Admitted = { envelope: Envelope; at: number }

type Held = { escalation: Escalation; heldMessage: Envelope; heldHop: number }

/**
 * A loop guard for one process: hop counts, the messages it admitted and escalations live in
 * memory, bounded by age and by the number of conversations.
 *
 * @example
 * const loopGuard = createMemoryLoopGuard({ maxHops: 3 })
 * const bus = createMessageBus({ loopGuard })
 */
export function createMemoryLoopGuard(options: MemoryLoopGuardOptions = {}): LoopGuard {
  return createGuard(options)
}

function createGuard(options: MemoryLoopGuardOptions): LoopGuard & AdmitsNow {
  parseWith(MemoryLoopGuardSettings, options, 'memory loop guard options')
  const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS
  const maxAgeMs = options.maxAgeMs ?? 60 * 60 * 1000
  const maxCorrelations = options.maxCorrelations ?? 10_000
  // Past the limit, a tenth of it goes at once, so eviction is amortized O(1) per message.
  const evictTo = Math.max(0, maxCorrelations - Math.ceil(maxCorrelations / 10))
  const now = options.now ?? Date.now
  const chains = new Map<string, Chain>()
  // Recency order, oldest first, so the chains to forget are found without scanning.
  const recency = new RecencyList<Chain>()
  const admitted = new Map<string, Admitted>()
  const held = new Map<string, Held>()

  const alive = (lastActivityAt: number, at: number) => lastActivityAt >= at - maxAgeMs

  function touch(correlationId: string): Chain {
    const at = now()
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
        path: [],
        ids: [],
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
    for (const id of chain.ids) admitted.delete(id)
    for (const id of chain.escalationIds) held.delete(id)
  }

  function record(chain: Chain, envelope: Envelope): void {
    chain.ids.push(envelope.id)
    admitted.set(envelope.id, { envelope, at: now() })
  }

  // What is known of a message: only while its chain is alive and it is younger than maxAgeMs.
  function lookup(envelopeId: string): Envelope | undefined {
    const entry = admitted.get(envelopeId)
    if (!entry) return undefined
    const at = now()
    const chain = chains.get(entry.envelope.correlationId)
    if (!chain || !alive(chain.lastActivityAt, at) || !alive(entry.at, at)) return undefined
    return entry.envelope
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

  // See `LoopGuard.restore`: chains are rebuilt oldest first, each as old as its last activity.
  function restore({ messages, escalations }: GuardHistory): void {
    const at = now()
    const timeOf = (iso: string | undefined) => Math.min(Date.parse(iso ?? '') || at, at)
    const latest = new Map<string, number>()
    const saw = (correlationId: string, time: number) =>
      latest.set(correlationId, Math.max(latest.get(correlationId) ?? 0, time))
    for (const message of messages) saw(message.correlationId, timeOf(message.createdAt))
    for (const escalation of escalations) {
      saw(escalation.correlationId, timeOf(escalation.resolvedAt ?? escalation.createdAt))
    }
    const live = [...latest].filter(([, time]) => alive(time, at)).sort((a, b) => a[1] - b[1])
    for (const [correlationId, time] of live) touch(correlationId).lastActivityAt = time
    for (const message of messages) {
      const chain = chains.get(message.correlationId)
      if (!chain || admitted.has(message.id)) continue
      chain.ids.push(message.id)
      admitted.set(message.id, { envelope: message, at: timeOf(message.createdAt) })
      // Counted as `admit` counted it: an envelope may carry a hop lower than its count.
      chain.next = hopOf(message, chain.next) + 1
      extendPath(chain.path, message)
    }
    const inOrder = [...escalations].sort((a, b) => timeOf(a.createdAt) - timeOf(b.createdAt))
    for (const escalation of inOrder) {
      const chain = chains.get(escalation.correlationId)
      if (!chain || held.has(escalation.id)) continue
      const heldHop = escalation.hops + 1
      held.set(escalation.id, { escalation, heldMessage: escalation.lastMessage, heldHop })
      chain.escalationIds.push(escalation.id)
      chain.openEscalationId = escalation.status === 'open' ? escalation.id : undefined
      if (escalation.status === 'open') chain.status = 'escalated'
      else if (escalation.status === 'stopped') chain.status = 'stopped'
      else {
        chain.status = 'active'
        chain.limit = heldHop - 1 + (escalation.extraHops ?? 1)
        chain.next = Math.max(chain.next, heldHop + 1)
      }
    }
  }

  function admitNow(envelope: Envelope): Admission {
    const chain = touch(envelope.correlationId)
    // A held or stopped chain admits nothing, whatever id arrives: the state is checked first.
    if (chain.status === 'stopped') {
      const last = chain.escalationIds.at(-1)
      return { status: 'stopped', escalation: last ? held.get(last)?.escalation : undefined }
    }
    const open = chain.openEscalationId ? held.get(chain.openEscalationId) : undefined
    if (chain.status === 'escalated' && open) {
      return { status: 'waiting', escalation: open.escalation }
    }
    const known = lookup(envelope.id)
    if (known) {
      if (sameMessage(known, envelope)) return { status: 'duplicate', hops: chain.next - 1 }
      return { status: 'conflict', problem: 'id-reused', recorded: recordOf(known) }
    }
    const parent = envelope.inReplyTo === undefined ? undefined : lookup(envelope.inReplyTo)
    if (parent && parent.correlationId !== envelope.correlationId) {
      return { status: 'conflict', problem: 'correlation', recorded: recordOf(parent) }
    }
    if (parent && envelope.hop !== parent.hop + 1) {
      return { status: 'conflict', problem: 'hop', recorded: recordOf(parent) }
    }
    const hop = hopOf(envelope, chain.next)
    if (hop > chain.limit) {
      const escalation: Escalation = {
        id: newId('esc'),
        correlationId: envelope.correlationId,
        hops: hop - 1,
        path: extendPath([...chain.path], envelope),
        lastMessage: envelope,
        status: 'open',
        createdAt: new Date(now()).toISOString(),
      }
      held.set(escalation.id, { escalation, heldMessage: envelope, heldHop: hop })
      chain.status = 'escalated'
      chain.openEscalationId = escalation.id
      chain.escalationIds.push(escalation.id)
      return { status: 'escalated', escalation }
    }
    chain.next = hop + 1
    record(chain, envelope)
    extendPath(chain.path, envelope)
    return { status: 'admitted', hops: hop }
  }

  return {
    maxHops,
    [ADMIT_NOW]: admitNow,
    async admit(envelope) {
      return admitNow(envelope)
    },
    async observe(envelope) {
      const chain = touch(envelope.correlationId)
      if (lookup(envelope.id)) return
      record(chain, envelope)
      chain.next = Math.max(chain.next, envelope.hop + 1)
      extendPath(chain.path, envelope)
    },
    async recorded(envelopeId) {
      const envelope = lookup(envelopeId)
      return envelope && recordOf(envelope)
    },
    async allow({ escalationId, extraHops }) {
      assertExtraHops(escalationId, extraHops)
      const { entry, escalation, chain } = resolve(escalationId, { status: 'allowed', extraHops })
      chain.status = 'active'
      // The held message is the first of the extra hops: the chain may now reach the hop count
      // it was held at plus `extraHops`, and the next escalation says so.
      chain.limit = entry.heldHop - 1 + extraHops
      chain.next = entry.heldHop + 1
      record(chain, entry.heldMessage)
      extendPath(chain.path, entry.heldMessage)
      return { escalation, heldMessage: entry.heldMessage }
    },
    async stop({ escalationId, reason }) {
      const { escalation, chain } = resolve(escalationId, { status: 'stopped', reason })
      chain.status = 'stopped'
      return escalation
    },
    async hops(correlationId) {
      const chain = chains.get(correlationId)
      if (!chain || !alive(chain.lastActivityAt, now())) return 0
      return Math.max(0, chain.next - 1)
    },
    async escalation(escalationId) {
      const entry = held.get(escalationId)
      const chain = entry && chains.get(entry.escalation.correlationId)
      return chain && alive(chain.lastActivityAt, now()) ? entry.escalation : undefined
    },
    async escalations() {
      const at = now()
      return [...held.values()]
        .filter((entry) => {
          const chain = chains.get(entry.escalation.correlationId)
          return chain !== undefined && alive(chain.lastActivityAt, at)
        })
        .map((entry) => entry.escalation)
    },
    async restore(history) {
      restore(history)
    },
    async close() {
      recency.clear()
      chains.clear()
      admitted.clear()
      held.clear()
    },
  }
}

function recordOf(envelope: Envelope): MessageRecord {
  return { id: envelope.id, correlationId: envelope.correlationId, hop: envelope.hop }
}
