import { parseWith } from '@baton/core'
import { newId } from '../envelope/create-envelope'
import type { Envelope } from '../envelope/envelope'
import { FunctionOption, LoopGuardSettings, PositiveWhole } from '../options/option-schemas'
import { extendPath, hopOf } from './chain-state'
import type { Escalation } from './escalation'
import { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'
import {
  type Admission,
  DEFAULT_MAX_HOPS,
  type LoopGuard,
  type LoopGuardOptions,
} from './loop-guard'

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

type Chain = {
  /** The next hop number: every hop below it has been used. */
  next: number
  /** The highest hop number that may travel. */
  limit: number
  status: 'active' | 'escalated' | 'stopped'
  path: string[]
  ids: Set<string>
  escalationIds: string[]
  openEscalationId: string | undefined
  lastActivityAt: number
}

type Held = { escalation: Escalation; heldMessage: Envelope; heldHop: number }

/**
 * A loop guard for one process: hop counts and escalations live in memory, bounded by age and
 * by the number of conversations.
 *
 * @example
 * const loopGuard = createMemoryLoopGuard({ maxHops: 3 })
 * const bus = createMessageBus({ loopGuard })
 */
export function createMemoryLoopGuard(options: MemoryLoopGuardOptions = {}): LoopGuard {
  parseWith(MemoryLoopGuardSettings, options, 'memory loop guard options')
  const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS
  const maxAgeMs = options.maxAgeMs ?? 60 * 60 * 1000
  const maxCorrelations = options.maxCorrelations ?? 10_000
  const now = options.now ?? Date.now
  // Map order doubles as recency order: a touched chain is moved to the end.
  const chains = new Map<string, Chain>()
  const held = new Map<string, Held>()

  function touch(correlationId: string): Chain {
    let chain = chains.get(correlationId)
    if (chain) chains.delete(correlationId)
    else {
      chain = {
        next: 0,
        limit: maxHops,
        status: 'active',
        path: [],
        ids: new Set(),
        escalationIds: [],
        openEscalationId: undefined,
        lastActivityAt: 0,
      }
    }
    chain.lastActivityAt = now()
    chains.set(correlationId, chain)
    prune()
    return chain
  }

  function prune(): void {
    const cutoff = now() - maxAgeMs
    for (const [correlationId, chain] of chains) {
      if (chains.size <= maxCorrelations && chain.lastActivityAt >= cutoff) break
      chains.delete(correlationId)
      for (const id of chain.escalationIds) held.delete(id)
    }
  }

  function find(escalationId: string): Held & { chain: Chain } {
    const entry = held.get(escalationId)
    const chain = entry && chains.get(entry.escalation.correlationId)
    if (!entry || !chain) throw new EscalationNotFoundError(escalationId)
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

  function admitNow(envelope: Envelope): Admission {
    const chain = touch(envelope.correlationId)
    const open = chain.openEscalationId ? held.get(chain.openEscalationId) : undefined
    if (chain.status === 'stopped') {
      const last = chain.escalationIds.at(-1)
      return { status: 'stopped', escalation: last ? held.get(last)?.escalation : undefined }
    }
    if (chain.ids.has(envelope.id)) return { status: 'admitted', hops: chain.next - 1 }
    if (chain.status === 'escalated' && open)
      return { status: 'waiting', escalation: open.escalation }
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
    chain.ids.add(envelope.id)
    extendPath(chain.path, envelope)
    return { status: 'admitted', hops: hop }
  }

  return {
    maxHops,
    async admit(envelope) {
      return admitNow(envelope)
    },
    async observe(envelope) {
      const chain = touch(envelope.correlationId)
      if (chain.ids.has(envelope.id)) return
      chain.ids.add(envelope.id)
      chain.next = Math.max(chain.next, envelope.hop + 1)
      extendPath(chain.path, envelope)
    },
    async allow({ escalationId, extraHops }) {
      const { entry, escalation, chain } = resolve(escalationId, { status: 'allowed', extraHops })
      chain.status = 'active'
      // The held message is the first of the extra hops: the chain may now reach the hop count
      // it was held at plus `extraHops`, and the next escalation says so.
      chain.limit = entry.heldHop - 1 + extraHops
      chain.next = entry.heldHop + 1
      chain.ids.add(entry.heldMessage.id)
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
      return chain ? Math.max(0, chain.next - 1) : 0
    },
    async escalation(escalationId) {
      return held.get(escalationId)?.escalation
    },
    async escalations() {
      return [...held.values()].map((entry) => entry.escalation)
    },
    async close() {
      chains.clear()
      held.clear()
    },
  }
}
