import { hopOf } from './chain-state'
import type { GuardHistory } from './loop-guard'
import type { MemoryChains } from './memory-chains'

/**
 * Rebuilds a memory guard's chains from a saved history (see `LoopGuard.restore`): chains are
 * rebuilt oldest first, each as old as its last activity; what the guard knows already stays.
 *
 * @example
 * restoreMemoryChains(store, { messages, escalations })
 */
export function restoreMemoryChains(
  store: MemoryChains,
  { messages, escalations }: GuardHistory,
): void {
  const { chains, admitted, held, alive, touch, record, now } = store
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
    record(chain, message, timeOf(message.createdAt))
    // Counted as `admit` counted it: an envelope may carry a hop lower than its count.
    chain.next = hopOf(message, chain.next) + 1
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
