import {
  createEnvelope,
  createMemoryLoopGuard,
  createMessageBus,
  type Envelope,
  type Escalation,
  LoopGuardError,
} from '@baton/comm'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it } from 'vitest'
import { actOnStoredDecisions, escalationsToRestore } from './stored-decisions'

const since = new Date(Date.now() - 60 * 60 * 1000)

/** A bus whose guard holds a conversation of `a` and `b` after two hops, and what reached them. */
function heldBus() {
  const bus = createMessageBus({ loopGuard: createMemoryLoopGuard({ maxHops: 2 }) })
  const delivered: Envelope[] = []
  for (const agentId of ['a', 'b']) {
    bus.subscribe(agentId, async (envelope) => {
      delivered.push(envelope)
    })
  }
  const hold = async (correlationId: string): Promise<Escalation> => {
    for (let hop = 0; ; hop++) {
      const [from, to] = hop % 2 === 0 ? ['a', 'b'] : ['b', 'a']
      const sent = await bus
        .send(
          createEnvelope({
            from: { agentId: from! },
            to: { agentId: to! },
            content: `pass ${hop}`,
            correlationId,
            hop,
          }),
        )
        .catch((error: unknown) => error)
      if (sent instanceof LoopGuardError && sent.escalation) return sent.escalation
      if (hop > 10) throw new Error('not held')
    }
  }
  return { bus, delivered, hold }
}

function recordingLog() {
  const lines: string[] = []
  const log = {
    info: (_fields: unknown, message: string) => lines.push(`info ${message}`),
    warn: (_fields: unknown, message: string) => lines.push(`warn ${message}`),
  } as unknown as FastifyBaseLogger
  return { log, lines }
}

describe('decisions stored before the guard acted', () => {
  it('allows, or stops, what the guard still holds open, as stored; and nothing twice', async () => {
    const { bus, delivered, hold } = heldBus()
    const { log, lines } = recordingLog()
    const allowed = await hold('allowed')
    const stopped = await hold('stopped')
    const old = await hold('decided-long-ago')
    const now = new Date().toISOString()
    const stored: Escalation[] = [
      { ...allowed, status: 'allowed', extraHops: 1, resolvedAt: now },
      { ...stopped, status: 'stopped', reason: 'enough', resolvedAt: now },
      // Older than the guard's memory: not this start's to act on.
      { ...old, status: 'allowed', extraHops: 1, resolvedAt: '2020-01-01T00:00:00.000Z' },
    ]
    await actOnStoredDecisions(bus, stored, { since, logger: log })
    await bus.settled()
    expect(delivered.filter((each) => each.id === allowed.lastMessage.id)).toHaveLength(1)
    expect(await bus.escalation(allowed.id)).toMatchObject({ status: 'allowed', extraHops: 1 })
    expect(await bus.escalation(stopped.id)).toMatchObject({ status: 'stopped', reason: 'enough' })
    expect(await bus.escalation(old.id)).toMatchObject({ status: 'open' })
    expect(lines.filter((line) => line.startsWith('info'))).toHaveLength(2)

    // Acted on already: a second start does nothing more.
    await actOnStoredDecisions(bus, stored, { since, logger: log })
    await bus.settled()
    expect(delivered.filter((each) => each.id === allowed.lastMessage.id)).toHaveLength(1)
    expect(lines.filter((line) => line.startsWith('info'))).toHaveLength(2)
    await bus.close()
  })

  it('lets two starts at once act on a decision once, neither warning of the other', async () => {
    const { bus, delivered, hold } = heldBus()
    const { log, lines } = recordingLog()
    const held = await hold('two-starts')
    const stored: Escalation[] = [
      { ...held, status: 'allowed', extraHops: 1, resolvedAt: new Date().toISOString() },
    ]
    // Two processes sharing one guard, both starting now.
    await Promise.all([
      actOnStoredDecisions(bus, stored, { since, logger: log }),
      actOnStoredDecisions(bus, stored, { since, logger: log }),
    ])
    await bus.settled()
    expect(delivered.filter((each) => each.id === held.lastMessage.id)).toHaveLength(1)
    expect(lines).toEqual(['info a decision stored before the last stop, acted on'])
    await bus.close()
  })

  it('logs each decision it cannot act on, and lets the start go on', async () => {
    const { bus, hold } = heldBus()
    const { log, lines } = recordingLog()
    const first = await hold('first')
    const second = await hold('second')
    const now = new Date().toISOString()
    // A bus that can no longer ask its guard.
    await bus.close()
    await actOnStoredDecisions(
      bus,
      [
        { ...first, status: 'allowed', extraHops: 1, resolvedAt: now },
        { ...second, status: 'stopped', reason: 'enough', resolvedAt: now },
      ],
      { since, logger: log },
    )
    expect(lines).toEqual([
      'warn acting on a stored decision failed',
      'warn acting on a stored decision failed',
    ])
  })

  it('gives the guard of one process an allow whose held message was never sent as still open', async () => {
    const { hold, bus } = heldBus()
    const held = await hold('never-sent')
    const sentOne = await hold('sent')
    const now = new Date().toISOString()
    const stored: Escalation[] = [
      { ...held, status: 'allowed', extraHops: 2, resolvedAt: now },
      { ...sentOne, status: 'allowed', extraHops: 2, resolvedAt: now },
    ]
    const sentIds = new Set([sentOne.lastMessage.id])
    const restored = await escalationsToRestore(
      stored,
      async (id) => (sentIds.has(id) ? { envelope: sentOne.lastMessage, sent: true } : undefined),
      { since },
    )
    expect(restored[0]).toEqual({ ...held, status: 'open' })
    expect(restored[1]).toBe(stored[1])
    await bus.close()
  })
})
