import { parseWith } from '@baton/core'
import type { Envelope } from '../envelope/envelope'
import { FunctionOption, LoopGuardSettings, PositiveWhole } from '../options/option-schemas'
import { admitInMemory } from './admit-in-memory'
import { ADMIT_NOW, type AdmitsNow } from './admit-now'
import { assertExtraHops } from './assert-extra-hops'
import { recordOf } from './chain-state'
import {
  type Admission,
  DEFAULT_MAX_HOPS,
  type LoopGuard,
  type LoopGuardOptions,
} from './loop-guard'
import { createMemoryChains } from './memory-chains'
import { restoreMemoryChains } from './restore-memory-chains'

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
  const now = options.now ?? Date.now
  const store = createMemoryChains({ maxHops, maxAgeMs, maxCorrelations, now })
  const { chains, held, alive, touch, record, lookup, resolve } = store
  const admitNow = (envelope: Envelope, fresh?: boolean): Admission =>
    admitInMemory(store, envelope, fresh)

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
      restoreMemoryChains(store, history)
    },
    async close() {
      store.clear()
    },
  }
}
