import { ValidationError } from '@baton/core'
import { describe, expect, it } from 'vitest'
import type { Envelope } from '../envelope/envelope'
import { ADMIT_NOW } from '../loop-guard/admit-now'
import { createMemoryLoopGuard } from '../loop-guard/create-memory-loop-guard'
import { createInProcessRail } from '../rails/create-in-process-rail'
import type { Transport } from '../rails/transport'
import { TransportError } from '../rails/transport-error'
import { createMessageBus } from './create-message-bus'
import type { DeliveryError } from './delivery-error'

const ops = { agentId: 'ops', agentName: 'Ops Orchestrator', agentRole: 'coordinator' }

describe('createMessageBus', () => {
  it('fills in id, time, hop 0 and a fresh correlation for a new conversation', async () => {
    const bus = createMessageBus()
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    const first = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'review' })
    const second = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'again' })
    expect(first).toMatchObject({ hop: 0, type: 'direct', from: ops, content: 'review' })
    expect(first.id).not.toBe(second.id)
    expect(first.correlationId).not.toBe(second.correlationId)
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false)
    expect(received).toEqual([first, second])
    await bus.close()
  })

  it('refuses an envelope whose id could break a line of an event stream, naming `id`', async () => {
    const bus = createMessageBus()
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    for (const id of ['m1\nevent: escalation', 'm1\revent: escalation', 'with space', '']) {
      const envelope = {
        id,
        from: ops,
        to: { agentId: 'analyst' },
        content: 'review',
        type: 'direct' as const,
        correlationId: 'corr_1',
        hop: 0,
        createdAt: new Date().toISOString(),
      }
      const refusal = await bus.relay(envelope).catch((error: unknown) => error)
      expect(refusal).toBeInstanceOf(ValidationError)
      expect((refusal as ValidationError).details.issues).toContainEqual(
        expect.objectContaining({ path: 'id' }),
      )
    }
    expect(received).toEqual([])
    await bus.close()
  })

  it('keeps the correlation on forward and reply, from the previous recipient, hop + 1', async () => {
    const bus = createMessageBus()
    const first = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'review' })
    const forwarded = await bus.forward(first, 'reviewer')
    const answer = await bus.reply(forwarded, 'done')
    expect(forwarded).toMatchObject({
      correlationId: first.correlationId,
      hop: 1,
      from: { agentId: 'analyst' },
      to: { agentId: 'reviewer' },
      content: 'review',
      inReplyTo: first.id,
    })
    expect(answer).toMatchObject({
      correlationId: first.correlationId,
      hop: 2,
      type: 'reply',
      from: { agentId: 'reviewer' },
      to: { agentId: 'analyst' },
      inReplyTo: forwarded.id,
    })
    expect(bus.history(first.correlationId)).toEqual([first, forwarded, answer])
    expect(bus.hops(first.correlationId)).toBe(2)
    await bus.close()
  })

  it('keeps delivering to other subscribers when one throws, and reports the failure', async () => {
    const reported: DeliveryError[] = []
    const bus = createMessageBus({ onDeliveryError: (error) => reported.push(error) })
    const events: DeliveryError[] = []
    bus.on('delivery-error', (error) => events.push(error))
    const received: string[] = []
    bus.subscribe('analyst', () => {
      throw new Error('sync boom')
    })
    bus.subscribe('analyst', async () => {
      throw new Error('async boom')
    })
    bus.subscribe('analyst', (message) => {
      received.push(message.id)
    })
    const sent = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'x' })
    await bus.settled()
    expect(received).toEqual([sent.id])
    expect(reported.map((error) => (error.cause as Error).message).sort()).toEqual([
      'async boom',
      'sync boom',
    ])
    expect(events).toEqual(reported)
    expect(reported[0]).toMatchObject({
      code: 'DELIVERY_FAILED',
      agentId: 'analyst',
      envelope: sent,
    })
    await bus.close()
  })

  it('records and delivers once each a forward a subscriber makes while it is being delivered to', async () => {
    const bus = createMessageBus()
    const announced: string[] = []
    bus.on('message', (message) => announced.push(message.to.agentId))
    const received: string[] = []
    const forwards: Promise<Envelope>[] = []
    bus.subscribe('analyst', (message) => {
      received.push(`analyst:${message.content}`)
      // Not awaited: the forward is published while the send's own delivery is under way.
      forwards.push(bus.forward(message, 'reviewer'))
    })
    bus.subscribe('reviewer', (message) => {
      received.push(`reviewer:${message.content}`)
    })
    const sent = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'x' })
    const [forwarded] = await Promise.all(forwards)
    expect(received).toEqual(['analyst:x', 'reviewer:x'])
    expect(announced).toEqual(['analyst', 'reviewer'])
    expect(bus.history(sent.correlationId)).toEqual([sent, forwarded])
    expect(bus.hops(sent.correlationId)).toBe(1)
    await bus.close()
  })

  it('resolves a send over an in-process rail handed to another bus once that bus has delivered it', async () => {
    const rail = createInProcessRail()
    const sender = createMessageBus({ transport: rail })
    await sender.ready()
    // The rail hands every envelope to the bus started last, whose guard takes its time.
    const guard = createMemoryLoopGuard()
    const slowGuard = {
      ...guard,
      observe: async (envelope: Envelope) => {
        await new Promise((resolve) => setTimeout(resolve, 20))
        await guard.observe(envelope)
      },
    }
    const receiver = createMessageBus({ transport: rail, loopGuard: slowGuard })
    await receiver.ready()
    const received: string[] = []
    receiver.subscribe('analyst', (message) => {
      received.push(message.content)
    })
    const sent = await sender.send({ from: ops, to: { agentId: 'analyst' }, content: 'x' })
    expect(received).toEqual(['x'])
    expect(sender.history(sent.correlationId)).toEqual([sent])
    expect(receiver.history(sent.correlationId)).toEqual([sent])
    await receiver.close()
    await sender.close()
    await guard.close()
  })

  it('stops delivering to a handler once it unsubscribes', async () => {
    const bus = createMessageBus()
    const received: string[] = []
    const unsubscribe = bus.subscribe('analyst', (message) => {
      received.push(message.content)
    })
    await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'one' })
    unsubscribe()
    await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'two' })
    expect(received).toEqual(['one'])
    await bus.close()
  })

  it('refuses a subscription without an agent id or a handler, naming what is wrong', async () => {
    const bus = createMessageBus()
    expect(() => bus.subscribe('', () => {})).toThrow(/subscription: agentId/)
    expect(() => bus.subscribe('analyst', 'log' as unknown as () => void)).toThrow(
      /subscription: handler: expected a function/,
    )
    await bus.close()
  })

  it('rejects a malformed message with a ValidationError naming the field', async () => {
    const bus = createMessageBus()
    const error = await bus
      .send({ from: { agentId: '' }, to: { agentId: 'analyst' }, content: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ValidationError)
    expect((error as ValidationError).message).toContain('from.agentId')
    await bus.close()
  })

  it('rejects with a TransportError when the rail cannot take the envelope', async () => {
    const broken: Transport = {
      name: 'broken',
      async start() {},
      async publish() {
        throw new Error('disk full')
      },
      async close() {},
    }
    const bus = createMessageBus({ transport: broken })
    const error = await bus
      .send({ from: ops, to: { agentId: 'analyst' }, content: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TransportError)
    expect((error as TransportError).message).toContain('broken rail')
    expect((error as TransportError).cause).toMatchObject({ message: 'disk full' })
    await bus.close()
  })

  it('rejects every send when the rail failed to start', async () => {
    const bus = createMessageBus({
      transport: {
        name: 'down',
        start: () => Promise.reject(new Error('ECONNREFUSED')),
        async publish() {},
        async close() {},
      },
    })
    await expect(bus.ready()).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' })
    await expect(
      bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'x' }),
    ).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' })
    await bus.close()
  })

  it('refuses work after close', async () => {
    const bus = createMessageBus()
    await bus.close()
    await expect(
      bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'x' }),
    ).rejects.toMatchObject({ code: 'BUS_CLOSED' })
  })

  it('delivers a duplicate envelope (same id) from a rail only once', async () => {
    let receive: ((raw: unknown) => Promise<void>) | undefined
    const bus = createMessageBus({
      transport: {
        name: 'echo',
        async start(receiver) {
          receive = receiver
        },
        async publish() {},
        async close() {},
      },
    })
    await bus.ready()
    const received: string[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message.id)
    })
    const envelope = {
      id: 'msg_1',
      from: ops,
      to: { agentId: 'analyst' },
      content: 'x',
      type: 'direct',
      correlationId: 'corr_1',
      hop: 0,
      createdAt: new Date().toISOString(),
    }
    await receive?.(envelope)
    await receive?.(envelope)
    await receive?.({ ...envelope, id: 'msg_2', hop: 'not a number' })
    expect(received).toEqual(['msg_1'])
    await bus.close()
  })
})

describe('createMessageBus options', () => {
  const invalid: [string, Parameters<typeof createMessageBus>[0], string][] = [
    ['a retention of no messages', { retention: { maxMessages: 0 } }, 'retention.maxMessages'],
    ['a fractional age', { retention: { maxAgeMs: 1.5 } }, 'retention.maxAgeMs'],
    ['a negative hop limit', { loopGuard: { maxHops: -1 } }, 'loopGuard.maxHops'],
    ['signatures with no wallets', { requireSignatures: true }, 'resolveWallet'],
    [
      'a rail without publish',
      { transport: { name: 'half' } as unknown as Transport },
      'transport.start',
    ],
    [
      'a callback that is not a function',
      { onEscalation: 'log' as unknown as () => void },
      'onEscalation',
    ],
  ]
  for (const [what, options, field] of invalid) {
    it(`refuses ${what} with a ValidationError naming ${field}`, () => {
      let caught: unknown
      try {
        createMessageBus(options)
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(ValidationError)
      expect((caught as ValidationError).message).toContain('message bus options')
      expect((caught as ValidationError).message).toContain(field)
    })
  }
})

describe('createMessageBus retention', () => {
  it('drops the least recently active conversations past maxMessages, in batches, with their hop counts', async () => {
    const bus = createMessageBus({ retention: { maxMessages: 100 } })
    const expired: string[] = []
    bus.on('correlation-expired', ({ correlationId }) => expired.push(correlationId))
    const sent: Envelope[] = []
    for (let index = 0; index < 250; index += 1) {
      sent.push(await bus.send({ from: ops, to: { agentId: `agent-${index}` }, content: 'x' }))
    }
    const kept = bus.correlations()
    // past the limit a batch goes at once: down to nine tenths of it, oldest first
    expect(kept.length).toBeLessThanOrEqual(100)
    expect(kept.length).toBeGreaterThanOrEqual(90)
    expect(kept).toEqual(sent.slice(-kept.length).map((message) => message.correlationId))
    expect(expired).toEqual(
      sent.slice(0, 250 - kept.length).map((message) => message.correlationId),
    )
    expect(bus.history(sent[0]!.correlationId)).toEqual([])
    expect(bus.hops(sent[0]!.correlationId)).toBe(0)
    expect(bus.history(sent[249]!.correlationId)).toEqual([sent[249]])
    await bus.close()
  })

  it('trims the oldest messages of one conversation that alone outgrows maxMessages', async () => {
    const bus = createMessageBus({ retention: { maxMessages: 10 }, loopGuard: { maxHops: 100 } })
    let message = await bus.send({ from: ops, to: { agentId: 'a1' }, content: 'x' })
    for (let index = 2; index <= 30; index += 1) message = await bus.forward(message, `a${index}`)
    const kept = bus.history(message.correlationId)
    expect(kept.length).toBeLessThanOrEqual(10)
    expect(kept.at(-1)).toEqual(message)
    await bus.close()
  })

  it('keeps at most maxCorrelations escalations, dropping resolved ones before open ones', async () => {
    const bus = createMessageBus({ retention: { maxCorrelations: 3 }, loopGuard: { maxHops: 0 } })
    const raise = async (index: number) => {
      const first = await bus.send({ from: ops, to: { agentId: `agent-${index}` }, content: 'x' })
      await bus.forward(first, 'ops').catch(() => {})
      return bus.escalations().at(-1)!
    }
    const resolved = await raise(0)
    await bus.stop(resolved.id, 'enough')
    const open: string[] = []
    for (let index = 1; index <= 3; index += 1) open.push((await raise(index)).id)
    // the resolved one went first
    expect(bus.escalations().map((escalation) => escalation.id)).toEqual(open)
    for (let index = 4; index <= 10; index += 1) open.push((await raise(index)).id)
    expect(bus.escalations().map((escalation) => escalation.id)).toEqual(open.slice(-3))
    await bus.close()
  })

  it('drops conversations idle longer than maxAgeMs (injected clock)', async () => {
    let now = 1_000_000
    const bus = createMessageBus({ retention: { maxAgeMs: 60_000 }, now: () => now })
    const old = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'old' })
    now += 30_000
    const recent = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'recent' })
    now += 45_000
    const fresh = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'fresh' })
    expect(bus.history(old.correlationId)).toEqual([])
    expect(bus.hops(old.correlationId)).toBe(0)
    expect(bus.history(recent.correlationId)).toEqual([recent])
    expect(bus.correlations()).toEqual([recent.correlationId, fresh.correlationId])
    await bus.close()
  })
})

describe('createMessageBus with a loop guard that cannot be reached', () => {
  it('fails the send with TRANSPORT_FAILED and delivers nothing', async () => {
    const guard = createMemoryLoopGuard()
    // As the Redis guard does while its Redis is away: the admit rejects with a plain error.
    const unreachable = Object.assign(Object.create(guard) as typeof guard, {
      [ADMIT_NOW]: undefined,
      admit: async () => {
        throw new Error("Stream isn't writeable and enableOfflineQueue options is false")
      },
    })
    const bus = createMessageBus({ loopGuard: unreachable })
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    const sent = bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'review' })
    await expect(sent).rejects.toBeInstanceOf(TransportError)
    await expect(sent).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' })
    expect(received).toEqual([])
    await bus.close()
  })

  it('fails a look-up, an allow or a stop with TRANSPORT_FAILED naming it, and nothing is done', async () => {
    const guard = createMemoryLoopGuard({ maxHops: 0 })
    let reachable = true
    const away = () => new Error("Stream isn't writeable and enableOfflineQueue options is false")
    // As the Redis guard does while its Redis is away: each call rejects with a plain error.
    const flaky = Object.assign(Object.create(guard) as typeof guard, {
      escalation: (id: string) => (reachable ? guard.escalation(id) : Promise.reject(away())),
      allow: (options: { escalationId: string; extraHops: number }) =>
        reachable ? guard.allow(options) : Promise.reject(away()),
      stop: (options: { escalationId: string; reason: string }) =>
        reachable ? guard.stop(options) : Promise.reject(away()),
    })
    const bus = createMessageBus({ loopGuard: flaky })
    const received: Envelope[] = []
    bus.subscribe('ops', (message) => {
      received.push(message)
    })
    const first = await bus.send({ from: ops, to: { agentId: 'analyst' }, content: 'one' })
    const held = bus.forward(first, 'ops', 'two')
    await expect(held).rejects.toMatchObject({ code: 'LOOP_GUARD_ESCALATED' })
    const [open] = bus.escalations()

    reachable = false
    for (const [call, what] of [
      [() => bus.escalation(open!.id), 'look up'],
      [() => bus.allow(open!.id, 1), 'allow'],
      [() => bus.stop(open!.id, 'enough'), 'stop'],
    ] as const) {
      const failed = call()
      await expect(failed).rejects.toBeInstanceOf(TransportError)
      await expect(failed).rejects.toMatchObject({
        code: 'TRANSPORT_FAILED',
        message: expect.stringContaining(
          `the loop guard could not ${what} escalation "${open!.id}"`,
        ),
      })
    }
    reachable = true
    expect(await bus.escalation(open!.id)).toMatchObject({ status: 'open' })
    expect(received).toEqual([])
    // The guard's own refusals pass as they are.
    await expect(bus.escalation('esc_unknown')).resolves.toBeUndefined()
    await expect(bus.allow('esc_unknown', 1)).rejects.toMatchObject({
      code: 'ESCALATION_NOT_FOUND',
    })
    expect(await bus.allow(open!.id, 1)).toMatchObject({ status: 'allowed' })
    await bus.settled()
    expect(received.map((message) => message.content)).toEqual(['two'])
    await bus.close()
  })
})
