import type { Envelope } from '../envelope/envelope'
import { newId } from '../envelope/new-id'
import { hopOf, pathOf, recordOf } from './chain-state'
import type { Escalation } from './escalation'
import type { Admission } from './loop-guard'
import type { MemoryChains } from './memory-chains'
import { sameMessage } from './same-message'

/**
 * The memory loop guard's verdict on `envelope`, decided at once: the chain's state first
 * (stopped, waiting), then what is known of the message and of the one it answers, then the
 * hop limit. An admitted message is counted and recorded; one past the limit is held. `fresh`
 * says the bus built the envelope just now with a new random id (see `ADMIT_NOW`).
 *
 * @example
 * const admission = admitInMemory(store, envelope) // { status: 'admitted', hops: 1 }
 */
export function admitInMemory(store: MemoryChains, envelope: Envelope, fresh = false): Admission {
  const { held, touch, lookup, lookupIn, record, now } = store
  // One reading of the clock for the whole decision.
  const at = now()
  const chain = touch(envelope.correlationId, at)
  // A held or stopped chain admits nothing, whatever id arrives: the state is checked first.
  if (chain.status === 'stopped') {
    const last = chain.escalationIds.at(-1)
    return { status: 'stopped', escalation: last ? held.get(last)?.escalation : undefined }
  }
  const open = chain.openEscalationId ? held.get(chain.openEscalationId) : undefined
  if (chain.status === 'escalated' && open) {
    return { status: 'waiting', escalation: open.escalation }
  }
  // A fresh id (just drawn at random by the bus) is known to no one.
  const known = fresh ? undefined : lookup(envelope.id, at)
  if (known) {
    if (sameMessage(known, envelope)) return { status: 'duplicate', hops: chain.next - 1 }
    return { status: 'conflict', problem: 'id-reused', recorded: recordOf(known) }
  }
  const parent =
    envelope.inReplyTo === undefined ? undefined : lookupIn(chain, envelope.inReplyTo, at)
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
      path: pathOf(chain.messages, envelope),
      lastMessage: envelope,
      status: 'open',
      createdAt: new Date(at).toISOString(),
    }
    held.set(escalation.id, { escalation, heldMessage: envelope, heldHop: hop })
    chain.status = 'escalated'
    chain.openEscalationId = escalation.id
    chain.escalationIds.push(escalation.id)
    return { status: 'escalated', escalation }
  }
  chain.next = hop + 1
  record(chain, envelope, at)
  return { status: 'admitted', hops: hop }
}
