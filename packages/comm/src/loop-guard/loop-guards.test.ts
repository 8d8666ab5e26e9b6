import { ValidationError } from '@baton/core'
import { installRedis, runRedisTests, startRedisServer } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { Envelope } from '../envelope/envelope'
import { createMemoryLoopGuard } from './create-memory-loop-guard'
import { createRedisLoopGuard } from './create-redis-loop-guard'
import type { LoopGuard } from './loop-guard'
import type { LoopGuardError } from './loop-guard-error'
import { MessageConflictError } from './message-conflict-error'

// Every guarantee below holds for both guards; each runs against the memory guard and a real
// redis-server.

type GuardOptions = { maxHops: number; maxAgeMs?: number; now?: () => number }
type Factory = (options: GuardOptions) => LoopGuard

let redis: { url: string; stop: () => void } | undefined
let prefixes = 0

beforeAll(async () => {
  if (runRedisTests) redis = await startRedisServer()
})
afterAll(() => redis?.stop())

if (!runRedisTests) console.warn(`Skipping the Redis loop guard cases: ${installRedis}.`)

const factories: [string, Factory][] = [
  ['createMemoryLoopGuard', (options) => createMemoryLoopGuard(options)],
  ...(runRedisTests
    ? ([
        [
          'createRedisLoopGuard',
          (options) => {
            prefixes += 1
            return createRedisLoopGuard({
              url: redis?.url ?? '',
              prefix: `guard-${process.pid}-${prefixes}`,
              ...options,
            })
          },
        ],
      ] as [string, Factory][])
    : []),
]

const A = { agentId: 'A' }
const B = { agentId: 'B' }

/** A bus over `guard` that records what each agent receives. */
function observedBus(guard: LoopGuard, retention?: { maxMessages: number }) {
  const bus = createMessageBus({ loopGuard: guard, ...(retention ? { retention } : {}) })
  const delivered: Envelope[] = []
  for (const agentId of ['A', 'B', 'C', 'D', 'E']) {
    bus.subscribe(agentId, (message) => {
      delivered.push(message)
    })
  }
  return { bus, delivered }
}

/** Sends a chain A → B → A → … until the guard holds it; returns the delivered hops and the error. */
async function runaway(bus: ReturnType<typeof observedBus>['bus']) {
  const chain: Envelope[] = [await bus.send({ from: A, to: B, content: 'task' })]
  for (;;) {
    const last = chain.at(-1)!
    try {
      chain.push(await bus.forward(last, last.from.agentId))
    } catch (error) {
      return { chain, error: error as LoopGuardError }
    }
  }
}

describe.each(factories)('%s', (_name, createGuard) => {
  it('delivers nothing of a held chain, whatever ids arrive, even once history forgot them', async () => {
    const guard = createGuard({ maxHops: 3 })
    const { bus, delivered } = observedBus(guard, { maxMessages: 2 })
    const { chain, error } = await runaway(bus)
    expect(error.code).toBe('LOOP_GUARD_ESCALATED')
    expect(chain).toHaveLength(4)
    const count = delivered.length
    for (let round = 0; round < 25; round += 1) {
      for (const message of chain) {
        const replay = { ...message, content: `new content ${round}` }
        await expect(bus.relay(replay)).rejects.toMatchObject({
          code: 'LOOP_GUARD_ESCALATED',
          held: false,
        })
      }
    }
    expect(delivered).toHaveLength(count)
    await bus.close()
    await guard.close()
  })

  it('never admits a known id twice: a replay with new content is refused, a retry is not redelivered', async () => {
    const guard = createGuard({ maxHops: 10 })
    const { bus, delivered } = observedBus(guard, { maxMessages: 2 })
    const first = await bus.send({ from: A, to: B, content: 'pay 5' })
    for (let index = 0; index < 3; index += 1) {
      await bus.send({ from: A, to: { agentId: 'C' }, content: `other ${index}` })
    }
    expect(bus.history(first.correlationId)).toEqual([])
    const replay = await bus.relay({ ...first, content: 'pay 500' }).catch((caught) => caught)
    expect(replay).toBeInstanceOf(MessageConflictError)
    expect(replay).toMatchObject({ code: 'MESSAGE_CONFLICT', problem: 'id-reused' })
    await expect(bus.relay({ ...first })).resolves.toMatchObject({ id: first.id })
    expect(delivered.filter((message) => message.id === first.id)).toHaveLength(1)
    await bus.close()
    await guard.close()
  })

  it('keeps an answer in the chain it answers: a stopped chain cannot be escaped by a new correlation', async () => {
    const guard = createGuard({ maxHops: 1 })
    const { bus, delivered } = observedBus(guard)
    const { chain, error } = await runaway(bus)
    await bus.stop(error.escalation!.id, 'enough')
    const count = delivered.length
    const last = chain.at(-1)!

    // a send naming a message of the stopped chain inherits its correlation, and is refused
    await expect(
      bus.send({ from: B, to: { agentId: 'C' }, content: 'again', inReplyTo: last.id }),
    ).rejects.toMatchObject({ code: 'LOOP_GUARD_STOPPED' })
    // a forward of a message with its correlation and hop rewritten is refused, typed
    const forged = await bus
      .forward({ ...last, correlationId: 'fresh', hop: 0 }, 'C')
      .catch((caught) => caught)
    expect(forged).toBeInstanceOf(MessageConflictError)
    expect(forged).toMatchObject({ problem: 'correlation', recorded: { id: last.id } })
    // so are a send and a relay that claim another correlation or hop than their inReplyTo
    await expect(
      bus.send({
        from: B,
        to: { agentId: 'C' },
        content: 'x',
        inReplyTo: last.id,
        correlationId: 'fresh',
      }),
    ).rejects.toMatchObject({ code: 'MESSAGE_CONFLICT', problem: 'correlation' })
    const other = await bus.send({ from: A, to: { agentId: 'D' }, content: 'new task' })
    await expect(
      bus.send({
        from: { agentId: 'D' },
        to: { agentId: 'E' },
        content: 'x',
        inReplyTo: other.id,
        hop: 5,
      }),
    ).rejects.toMatchObject({ code: 'MESSAGE_CONFLICT', problem: 'hop' })
    // liveness: a genuine answer of the other chain inherits correlation and hop, and goes
    const answer = await bus.send({
      from: { agentId: 'D' },
      to: A,
      content: 'done',
      inReplyTo: other.id,
    })
    expect(answer).toMatchObject({ correlationId: other.correlationId, hop: 1 })
    expect(delivered).toHaveLength(count + 2)
    await bus.close()
    await guard.close()
  })

  it('refuses an allowance that is not a whole number ≥ 1 before changing anything', async () => {
    const guard = createGuard({ maxHops: 1 })
    const { bus } = observedBus(guard)
    const { error } = await runaway(bus)
    const id = error.escalation!.id
    for (const extraHops of [Number.NaN, Number.POSITIVE_INFINITY, 0, -3, 1.5]) {
      const refused = await guard.allow({ escalationId: id, extraHops }).catch((caught) => caught)
      expect(refused).toBeInstanceOf(ValidationError)
      expect((refused as ValidationError).message).toContain('extraHops')
    }
    expect(await guard.escalations()).toMatchObject([{ id, status: 'open' }])
    await expect(guard.allow({ escalationId: id, extraHops: 1 })).resolves.toMatchObject({
      escalation: { status: 'allowed', extraHops: 1 },
    })
    await bus.close()
    await guard.close()
  })

  it('keeps a stopped chain stopped while it is retried, however long', async () => {
    let now = 1_000_000
    const guard = createGuard({ maxHops: 0, maxAgeMs: 600, now: () => now })
    const { bus } = observedBus(guard)
    const first = await bus.send({ from: A, to: B, content: 'x' })
    const held = (await bus.forward(first, 'A').catch((caught) => caught)) as LoopGuardError
    await bus.stop(held.escalation!.id, 'looping')
    for (let retry = 0; retry < 12; retry += 1) {
      now += 250
      await expect(
        bus.send({ from: A, to: B, content: 'retry', correlationId: first.correlationId }),
      ).rejects.toMatchObject({ code: 'LOOP_GUARD_STOPPED' })
    }
    // once nobody has touched it for longer than maxAgeMs, the chain is forgotten
    now += 601
    await expect(
      bus.send({ from: A, to: B, content: 'later', correlationId: first.correlationId }),
    ).resolves.toMatchObject({ hop: 0 })
    await bus.close()
    await guard.close()
  })
})

describe.skipIf(!runRedisTests)(
  'createRedisLoopGuard with records written before this version',
  () => {
    it('keeps a stopped chain stopped and allows an open escalation that lack the newer fields', async () => {
      const { Redis } = await import('ioredis')
      const client = new Redis(redis?.url ?? '')
      const prefix = `legacy-${process.pid}`
      const guard = createRedisLoopGuard({ url: redis?.url ?? '', prefix, maxHops: 1 })
      // a stopped chain as the earlier scripts wrote it: no 'seen' field
      await client.hset(`${prefix}:chain:corr_stopped`, { next: 2, limit: 1, status: 'stopped' })
      await client.pexpire(`${prefix}:chain:corr_stopped`, 60_000)
      const envelope = (correlationId: string, hop: number): Envelope => ({
        id: `msg_${correlationId}_${hop}`,
        from: A,
        to: B,
        content: 'x',
        type: 'direct',
        correlationId,
        hop,
        createdAt: new Date().toISOString(),
      })
      await expect(guard.admit(envelope('corr_stopped', 2))).resolves.toMatchObject({
        status: 'stopped',
      })
      // an open escalation as the earlier scripts wrote it: no 'claimed' or 'fingerprint'
      const held = envelope('corr_open', 2)
      await client.hset(`${prefix}:chain:corr_open`, {
        next: 2,
        limit: 1,
        status: 'escalated',
        open: 'esc_old',
        last: 'esc_old',
      })
      await client.hset(`${prefix}:escalation:esc_old`, {
        id: 'esc_old',
        correlationId: 'corr_open',
        hops: 1,
        heldHop: 2,
        heldId: held.id,
        from: 'A',
        to: 'B',
        path: JSON.stringify(['A', 'B', 'A', 'B']),
        lastMessage: JSON.stringify(held),
        status: 'open',
        createdAt: new Date().toISOString(),
      })
      await client.zadd(`${prefix}:escalations`, Date.now(), 'esc_old')
      await expect(guard.allow({ escalationId: 'esc_old', extraHops: 1 })).resolves.toMatchObject({
        escalation: { status: 'allowed' },
        heldMessage: { id: held.id },
      })
      // one unreadable record does not break the listing of the others
      await client.hset(`${prefix}:escalation:esc_broken`, {
        id: 'esc_broken',
        correlationId: 'corr_open',
        lastMessage: '{not json',
      })
      await client.zadd(`${prefix}:escalations`, Date.now(), 'esc_broken')
      expect((await guard.escalations()).map((escalation) => escalation.id)).toEqual(['esc_old'])
      await guard.close()
      await client.quit()
    })
  },
)
