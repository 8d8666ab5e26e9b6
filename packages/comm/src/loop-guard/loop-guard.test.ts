import { ValidationError } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import { createEnvelope } from '../envelope/create-envelope'
import type { Envelope } from '../envelope/envelope'
import { createMemoryLoopGuard } from './create-memory-loop-guard'
import type { Escalation } from './escalation'
import { LoopGuardError } from './loop-guard-error'

/** Two delegating agents that bounce every message back: the runaway chain the guard exists for. */
function pingPong(maxHops: number) {
  const escalations: Escalation[] = []
  const bus = createMessageBus({
    loopGuard: { maxHops },
    onEscalation: (escalation) => escalations.push(escalation),
  })
  const delivered: Envelope[] = []
  const refusals: unknown[] = []
  const bounce = async (message: Envelope) => {
    delivered.push(message)
    try {
      await bus.forward(message, message.from.agentId)
    } catch (error) {
      refusals.push(error)
    }
  }
  bus.subscribe('A', bounce)
  bus.subscribe('B', bounce)
  return { bus, delivered, refusals, escalations }
}

describe('createMemoryLoopGuard (through the bus)', () => {
  it('stops a ping-pong chain after exactly maxHops and raises one escalation with the full path', async () => {
    const { bus, delivered, refusals, escalations } = pingPong(4)
    const first = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'task' })
    await bus.settled()

    // hop 0 (the original message) plus exactly four hops
    expect(delivered.map((message) => message.hop)).toEqual([0, 1, 2, 3, 4])
    expect(delivered.every((message) => message.correlationId === first.correlationId)).toBe(true)
    expect(bus.hops(first.correlationId)).toBe(4)
    expect(escalations).toHaveLength(1)
    const [escalation] = escalations
    expect(escalation).toMatchObject({
      correlationId: first.correlationId,
      hops: 4,
      status: 'open',
      path: ['A', 'B', 'A', 'B', 'A', 'B', 'A'],
    })
    expect(escalation?.lastMessage).toMatchObject({
      from: { agentId: 'B' },
      to: { agentId: 'A' },
      hop: 5,
    })
    expect(refusals).toHaveLength(1)
    expect(refusals[0]).toBeInstanceOf(LoopGuardError)
    expect((refusals[0] as LoopGuardError).code).toBe('LOOP_GUARD_ESCALATED')
    expect(bus.escalations()).toEqual(escalations)
    // the held message is not in the history: it was never delivered
    expect(bus.history(first.correlationId)).toHaveLength(5)
    await bus.close()
  })

  it('rejects send with LOOP_GUARD_ESCALATED when the message would pass maxHops', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1 } })
    const first = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'x' })
    const second = await bus.forward(first, 'C')
    await expect(bus.forward(second, 'D')).rejects.toMatchObject({
      code: 'LOOP_GUARD_ESCALATED',
      escalation: { path: ['A', 'B', 'C', 'D'], hops: 1 },
    })
    // while the escalation is open, the chain waits: nothing else goes, and no second escalation
    await expect(bus.forward(second, 'E')).rejects.toMatchObject({ code: 'LOOP_GUARD_ESCALATED' })
    expect(bus.escalations()).toHaveLength(1)
    await bus.close()
  })

  it('says whether an escalated message was held (delivered on allow) or dropped', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1 } })
    const received: string[] = []
    for (const agentId of ['C', 'D']) {
      bus.subscribe(agentId, (message) => {
        received.push(message.content)
      })
    }
    const first = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'x' })
    const second = await bus.forward(first, 'C')
    const kept = (await bus.forward(second, 'D', 'kept').catch((error) => error)) as LoopGuardError
    const dropped = (await bus
      .forward(second, 'D', 'dropped')
      .catch((error) => error)) as LoopGuardError
    expect(kept).toMatchObject({ code: 'LOOP_GUARD_ESCALATED', held: true })
    expect(kept.details.held).toBe(true)
    expect(kept.message).toContain('is held')
    expect(dropped).toMatchObject({ code: 'LOOP_GUARD_ESCALATED', held: false })
    expect(dropped.details.held).toBe(false)
    expect(dropped.message).toContain('dropped')
    expect(dropped.escalation?.id).toBe(kept.escalation?.id)
    await bus.allow(kept.escalation!.id, 1)
    expect(received).toEqual(['x', 'kept'])
    await bus.close()
  })

  it('lets exactly extraHops more hops through after allow, the held message first', async () => {
    const { bus, delivered, escalations } = pingPong(4)
    const resolved: Escalation[] = []
    bus.on('escalation-resolved', (escalation) => resolved.push(escalation))
    await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'task' })
    await bus.settled()
    const first = escalations[0]!

    const allowed = await bus.allow(first.id, 2)
    await bus.settled()

    expect(allowed).toMatchObject({ id: first.id, status: 'allowed', extraHops: 2 })
    expect(resolved).toEqual([allowed])
    // exactly two more hops: the held hop 5, then hop 6; hop 7 is held again
    expect(delivered.map((message) => message.hop)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(bus.hops(first.correlationId)).toBe(6)
    expect(escalations).toHaveLength(2)
    expect(escalations[1]).toMatchObject({ status: 'open', hops: 6 })
    expect(escalations[1]?.lastMessage.hop).toBe(7)
    expect(escalations[1]?.path).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B', 'A'])
    await expect(bus.allow(first.id, 1)).rejects.toMatchObject({
      code: 'ESCALATION_ALREADY_RESOLVED',
    })
    await bus.close()
  })

  it('refuses every later message of a stopped chain with LOOP_GUARD_STOPPED', async () => {
    const { bus, delivered, escalations } = pingPong(2)
    const first = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'task' })
    await bus.settled()
    const stopped = await bus.stop(escalations[0]!.id, 'looping, not useful')
    expect(stopped).toMatchObject({ status: 'stopped', reason: 'looping, not useful' })
    const count = delivered.length

    await expect(
      bus.send({
        from: { agentId: 'C' },
        to: { agentId: 'B' },
        content: 'again',
        correlationId: first.correlationId,
      }),
    ).rejects.toSatisfy(
      (error: unknown) => error instanceof LoopGuardError && error.code === 'LOOP_GUARD_STOPPED',
    )
    await expect(bus.allow(escalations[0]!.id, 3)).rejects.toMatchObject({
      code: 'ESCALATION_ALREADY_RESOLVED',
    })
    expect(delivered).toHaveLength(count)
    await bus.close()
  })

  it('refuses a message an agent sends to itself', async () => {
    const bus = createMessageBus()
    const received: Envelope[] = []
    bus.subscribe('A', (message) => {
      received.push(message)
    })
    await expect(
      bus.send({ from: { agentId: 'A' }, to: { agentId: 'A' }, content: 'me' }),
    ).rejects.toMatchObject({ code: 'LOOP_GUARD_SELF' })
    expect(received).toHaveLength(0)
    await bus.close()
  })

  it('does not trust a lower hop than it counted: a chain cannot reset itself', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 2 } })
    const first = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'x' })
    const same = { correlationId: first.correlationId, hop: 0 }
    await bus.send({ from: { agentId: 'B' }, to: { agentId: 'C' }, content: 'x', ...same })
    await bus.send({ from: { agentId: 'C' }, to: { agentId: 'D' }, content: 'x', ...same })
    await expect(
      bus.send({ from: { agentId: 'D' }, to: { agentId: 'E' }, content: 'x', ...same }),
    ).rejects.toMatchObject({ code: 'LOOP_GUARD_ESCALATED' })
    await bus.close()
  })

  it('holds a chain after 4 hops when maxHops is not given', async () => {
    const bus = createMessageBus()
    let message = await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'x' })
    for (const next of ['A', 'B', 'A', 'B']) message = await bus.forward(message, next)
    expect(bus.loopGuard.maxHops).toBe(4)
    expect(message.hop).toBe(4)
    await expect(bus.forward(message, 'A')).rejects.toMatchObject({
      code: 'LOOP_GUARD_ESCALATED',
      escalation: { hops: 4 },
    })
    await bus.close()
  })

  it('refuses an allowance that is not a whole number of at least one hop, naming it', async () => {
    const { bus, escalations } = pingPong(1)
    await bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'task' })
    await bus.settled()
    const id = escalations[0]!.id
    for (const extraHops of [0, -1, 1.5, Number.NaN]) {
      const error = await bus.allow(id, extraHops).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ValidationError)
      expect((error as ValidationError).message).toContain('extraHops')
      expect((error as ValidationError).message).toContain(id)
    }
    // the escalation is still open and can be allowed properly
    await expect(bus.allow(id, 1)).resolves.toMatchObject({ status: 'allowed' })
    await bus.close()
  })

  it('refuses malformed options of a memory guard, naming them', () => {
    expect(() => createMemoryLoopGuard({ maxHops: -2 })).toThrow(/maxHops/)
    expect(() => createMemoryLoopGuard({ maxCorrelations: 0 })).toThrow(/maxCorrelations/)
  })

  it('refuses allow and stop for an escalation it does not know', async () => {
    const bus = createMessageBus()
    await expect(bus.allow('esc_missing', 1)).rejects.toMatchObject({
      code: 'ESCALATION_NOT_FOUND',
    })
    await expect(bus.stop('esc_missing', 'no')).rejects.toMatchObject({
      code: 'ESCALATION_NOT_FOUND',
    })
    await bus.close()
  })

  it('forgets a message older than maxAgeMs while its chain is still active, and knows it again once admitted again', async () => {
    let now = 1_000_000
    const guard = createMemoryLoopGuard({ maxHops: 10, maxAgeMs: 60_000, now: () => now })
    const clock = { now: () => now }
    const from = { agentId: 'A' }
    const first = createEnvelope({ from, to: { agentId: 'B' }, content: 'one' }, clock)
    const { correlationId } = first
    const answer = (previous: Envelope, content: string) =>
      createEnvelope(
        {
          from: previous.to,
          to: previous.from,
          content,
          correlationId,
          hop: previous.hop + 1,
          inReplyTo: previous.id,
        },
        clock,
      )
    const second = answer(first, 'two')
    expect(await guard.admit(first)).toEqual({ status: 'admitted', hops: 0 })
    expect(await guard.admit(second)).toEqual({ status: 'admitted', hops: 1 })
    now += 40_000
    const third = answer(second, 'three')
    expect(await guard.admit(third)).toEqual({ status: 'admitted', hops: 2 })
    // the chain was active 30 s ago; its first two messages are 70 s old
    now += 30_000
    expect(await guard.recorded?.(first.id)).toBeUndefined()
    expect(await guard.recorded?.(third.id)).toEqual({ id: third.id, correlationId, hop: 2 })
    expect(await guard.admit(third)).toEqual({ status: 'duplicate', hops: 2 })
    // an answer to a forgotten message is counted on, not checked against it
    const late = answer(second, 'late')
    expect(await guard.admit(late)).toEqual({ status: 'admitted', hops: 3 })
    // the forgotten message comes again: admitted as new, then known as a duplicate
    expect(await guard.admit(first)).toEqual({ status: 'admitted', hops: 4 })
    expect(await guard.admit(first)).toEqual({ status: 'duplicate', hops: 4 })
    expect(await guard.recorded?.(first.id)).toEqual({ id: first.id, correlationId, hop: 0 })
    await guard.close()
  })
})
