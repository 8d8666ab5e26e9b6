import { describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { Envelope } from '../envelope/envelope'
import type { Escalation } from './escalation'
import { LoopGuardError } from './loop-guard-error'

/** A bus whose two agents bounce every message back, and what it delivered and raised. */
function pingPong(maxHops: number) {
  const escalations: Escalation[] = []
  const bus = createMessageBus({
    loopGuard: { maxHops },
    onEscalation: (escalation) => escalations.push(escalation),
  })
  const delivered: Envelope[] = []
  const bounce = async (message: Envelope) => {
    delivered.push(message)
    await bus.forward(message, message.from.agentId).catch(() => {})
  }
  bus.subscribe('A', bounce)
  bus.subscribe('B', bounce)
  return { bus, delivered, escalations }
}

describe('MessageBus.restore (memory loop guard)', () => {
  it('keeps a chain held across a restart: a new bus seeded from the stored messages can allow it, and the held message travels', async () => {
    const before = pingPong(3)
    const first = await before.bus.send({
      from: { agentId: 'A' },
      to: { agentId: 'B' },
      content: 'go',
    })
    await before.bus.settled()
    const [escalation] = before.escalations
    expect(escalation).toMatchObject({ status: 'open', hops: 3 })
    await before.bus.close()

    const after = pingPong(3)
    await after.bus.restore({ messages: before.delivered, escalations: [escalation!] })
    expect(after.bus.hops(first.correlationId)).toBe(3)
    expect(after.bus.escalations()).toEqual([escalation])
    // Not announced again: it is known, not new.
    expect(after.escalations).toHaveLength(0)
    // Still held: a new message of the chain waits on the escalation.
    await expect(
      after.bus.send({
        from: { agentId: 'A' },
        to: { agentId: 'B' },
        content: 'more',
        correlationId: first.correlationId,
      }),
    ).rejects.toBeInstanceOf(LoopGuardError)

    const allowed = await after.bus.allow(escalation!.id, 1)
    expect(allowed.status).toBe('allowed')
    await after.bus.settled()
    expect(after.delivered[0]).toMatchObject({ id: escalation!.lastMessage.id, hop: 4 })
    // One extra hop: the held message was it, so its answer is held again.
    expect(after.escalations).toHaveLength(1)
    expect(after.escalations[0]).toMatchObject({ status: 'open', hops: 4 })
    await after.bus.close()
  })

  it('keeps a chain stopped before a restart stopped', async () => {
    const before = pingPong(2)
    const first = await before.bus.send({
      from: { agentId: 'A' },
      to: { agentId: 'B' },
      content: 'go',
    })
    await before.bus.settled()
    const stopped = await before.bus.stop(before.escalations[0]!.id, 'enough')
    await before.bus.close()

    const after = pingPong(2)
    await after.bus.restore({ messages: before.delivered, escalations: [stopped] })
    await expect(after.bus.relay(first)).rejects.toMatchObject({ code: 'LOOP_GUARD_STOPPED' })
    await after.bus.close()
  })
})
