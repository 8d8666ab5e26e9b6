import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { freePort } from '@baton/testing/ports'
import { killAll } from '@baton/testing/processes'
import { hasRedis, installRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMessageBus } from '../../bus/create-message-bus'
import { createEnvelope } from '../../envelope/create-envelope'
import type { Envelope } from '../../envelope/envelope'
import { createRedisLoopGuard } from '../../loop-guard/create-redis-loop-guard'
import { createCommunicationStore } from '../../store/create-communication-store'
import { selectOpenEscalations } from '../../store/select-correlation'
import { createRedisRail } from './create-redis-rail'

const fixture = fileURLToPath(new URL('../__fixtures__/redis-peer.ts', import.meta.url))
const stallingFixture = fileURLToPath(
  new URL('../__fixtures__/redis-stalling-peer.ts', import.meta.url),
)

if (!hasRedis && !process.env.CI) {
  console.warn(`Skipping the Redis rail tests: redis-server is not on PATH; ${installRedis}.`)
}

describe('createRedisRail and createRedisLoopGuard options', () => {
  it('refuses malformed options with a ValidationError naming the option, before connecting', () => {
    const rail = (options: unknown) => () =>
      createRedisRail(options as Parameters<typeof createRedisRail>[0])
    const guard = (options: unknown) => () =>
      createRedisLoopGuard(options as Parameters<typeof createRedisLoopGuard>[0])
    const cases: [() => unknown, string][] = [
      [rail({}), 'exactly one of `url` and `redis`'],
      [rail({ url: 'http://127.0.0.1:6379' }), 'url'],
      [rail({ url: 'redis://127.0.0.1:6379', blockMs: -5 }), 'blockMs'],
      [guard({ url: 'redis://127.0.0.1:6379', maxHops: 2.5 }), 'maxHops'],
      [guard({ url: 'redis://127.0.0.1:6379', prefix: '' }), 'prefix'],
    ]
    for (const [create, field] of cases) {
      expect(create).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(field),
        }),
      )
    }
  })
})

describe.skipIf(!hasRedis && !process.env.CI)('createRedisRail and createRedisLoopGuard', () => {
  let redis: RedisServer | undefined
  let url = ''
  const peers: ChildProcess[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    url = redis.url
  })

  afterAll(async () => {
    killAll(peers)
    await redis?.stop()
  })

  function startPeer(args: string[], script = fixture) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@baton/source', script, url, ...args],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['pipe', 'pipe', 'pipe'] },
    )
    peers.push(child)
    const lines: Record<string, unknown>[] = []
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk)
    })
    createInterface({ input: child.stdout! }).on('line', (text) => lines.push(JSON.parse(text)))
    return { child, lines, stderr: () => stderr }
  }

  it('shares one conversation and one hop limit between buses in two processes', async () => {
    const prefix = `test-${Date.now()}`
    const b = startPeer([prefix, 'B'])
    await until(() => b.lines.some((line) => line.event === 'ready'), b.stderr)
    const a = startPeer([prefix, 'A', 'B'])
    const events = () => [...a.lines, ...b.lines]
    const refusals = () => events().filter((line) => line.event === 'refused')
    await until(
      () => refusals().length === 1,
      () => a.stderr() + b.stderr(),
    )

    const delivered = events().filter((line) => line.event === 'delivered')
    // hop 0 plus exactly maxHops (4), alternating between the two processes
    expect(delivered.map((line) => line.hop).sort()).toEqual([0, 1, 2, 3, 4])
    expect(
      delivered
        .filter((line) => line.agentId === 'B')
        .map((line) => line.hop)
        .sort(),
    ).toEqual([0, 2, 4])
    expect(new Set(delivered.map((line) => line.correlationId)).size).toBe(1)
    expect(refusals()[0]).toMatchObject({ agentId: 'B', code: 'LOOP_GUARD_ESCALATED' })

    // A third bus (a person's console) sees the same escalation and resolves it.
    const guard = createRedisLoopGuard({ url, prefix, maxHops: 4 })
    const operator = createMessageBus({
      transport: createRedisRail({ url, prefix }),
      loopGuard: guard,
    })
    const store = createCommunicationStore(operator)
    await operator.ready()
    // wait until the operator's bus listens for escalations raised elsewhere
    const { Redis } = await import('ioredis')
    const checker = new Redis(url)
    const channel = `${prefix}:escalation-events`
    let listeners = 0
    while (listeners < 1) {
      listeners = Number(((await checker.pubsub('NUMSUB', channel)) as [string, number])[1])
      if (listeners < 1) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    checker.disconnect()
    const [escalation] = await guard.escalations()
    expect(escalation).toMatchObject({
      status: 'open',
      hops: 4,
      path: ['A', 'B', 'A', 'B', 'A', 'B', 'A'],
      lastMessage: { from: { agentId: 'B' }, to: { agentId: 'A' }, hop: 5 },
    })
    expect(await guard.hops(escalation!.correlationId)).toBe(4)

    await operator.allow(escalation!.id, 2)
    // two more hops: the held hop 5 reaches A, A's hop 6 reaches B, and B's hop 7 is held again
    await until(
      () => refusals().length === 2,
      () => a.stderr() + b.stderr(),
    )
    const after = events().filter((line) => line.event === 'delivered')
    expect(after.map((line) => line.hop).sort()).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(refusals()[1]).toMatchObject({ agentId: 'B', code: 'LOOP_GUARD_ESCALATED' })
    const open = (await guard.escalations()).filter((item) => item.status === 'open')
    expect(open).toHaveLength(1)
    expect(open[0]).toMatchObject({ hops: 6, lastMessage: { hop: 7 } })
    // process B raised it; the operator's bus and store heard of it through Redis
    await until(
      () => selectOpenEscalations(store.getState()).length === 1,
      () => 'no escalation event reached the operator',
    )
    expect(selectOpenEscalations(store.getState())[0]?.id).toBe(open[0]?.id)

    await operator.stop(open[0]!.id, 'enough')
    await expect(
      operator.send({
        from: { agentId: 'C' },
        to: { agentId: 'A' },
        content: 'more',
        correlationId: escalation!.correlationId,
      }),
    ).rejects.toMatchObject({ code: 'LOOP_GUARD_STOPPED' })
    await operator.close()
    await guard.close()
    for (const peer of [a, b]) peer.child.stdin?.write('exit\n')
  }, 120_000)

  it('lets exactly one of many racing guards take the last hop of a chain', async () => {
    const prefix = `race-${Date.now()}`
    // Each guard has its own connection, as buses in different processes would.
    const guards = Array.from({ length: 4 }, () =>
      createRedisLoopGuard({ url, prefix, maxHops: 4 }),
    )
    const correlationId = 'corr_race'
    const envelopes = Array.from({ length: 24 }, (_, index) =>
      createEnvelope({
        from: { agentId: `agent-${index}` },
        to: { agentId: `agent-${index + 1}` },
        content: '.',
        correlationId,
      }),
    )
    const admissions = await Promise.all(
      envelopes.map((envelope, index) => guards[index % guards.length]!.admit(envelope)),
    )
    const statuses = admissions.map((admission) => admission.status)
    // hops 0 to 4 pass, one message is held, every other one waits on that escalation
    expect(statuses.filter((status) => status === 'admitted')).toHaveLength(5)
    expect(statuses.filter((status) => status === 'escalated')).toHaveLength(1)
    expect(statuses.filter((status) => status === 'waiting')).toHaveLength(18)
    const hops = admissions.flatMap((admission) =>
      admission.status === 'admitted' ? [admission.hops] : [],
    )
    expect(hops.sort()).toEqual([0, 1, 2, 3, 4])
    expect(await guards[0]!.hops(correlationId)).toBe(4)
    expect(await guards[3]!.escalations()).toHaveLength(1)
    for (const guard of guards) await guard.close()
  })

  it('delivers envelopes sent before the recipient subscribed, each once', async () => {
    const prefix = `early-${Date.now()}`
    const sender = createMessageBus({ transport: createRedisRail({ url, prefix }) })
    const sent: Envelope[] = []
    for (let index = 0; index < 3; index += 1) {
      sent.push(
        await sender.send({
          from: { agentId: 'ops' },
          to: { agentId: 'late' },
          content: String(index),
        }),
      )
    }
    const receiver = createMessageBus({ transport: createRedisRail({ url, prefix, blockMs: 100 }) })
    const received: string[] = []
    receiver.subscribe('late', (message) => {
      received.push(message.id)
    })
    await until(
      () => received.length === 3,
      () => '',
    )
    expect(received).toEqual(sent.map((message) => message.id))
    await sender.close()
    await receiver.close()
  })

  it('claims and delivers an envelope a crashed consumer took but never acknowledged', async () => {
    const prefix = `claim-${Date.now()}`
    const sender = createMessageBus({ transport: createRedisRail({ url, prefix }) })
    // A consumer of the same group reads the entry and dies before its XACK.
    const { Redis } = await import('ioredis')
    const crashed = new Redis(url)
    const stream = `${prefix}:inbox:worker`
    await crashed.xgroup('CREATE', stream, 'agents', '0', 'MKSTREAM')
    const sent = await sender.send({
      from: { agentId: 'ops' },
      to: { agentId: 'worker' },
      content: 'do it',
    })
    const taken = await crashed.xreadgroup(
      'GROUP',
      'agents',
      'crashed',
      'COUNT',
      10,
      'STREAMS',
      stream,
      '>',
    )
    expect(taken).toHaveLength(1)
    crashed.disconnect()

    const survivor = createMessageBus({
      transport: createRedisRail({ url, prefix, blockMs: 100, claimIdleMs: 200 }),
    })
    const received: string[] = []
    survivor.subscribe('worker', (message) => {
      received.push(message.id)
    })
    await until(
      () => received.length === 1,
      () => '',
    )
    expect(received).toEqual([sent.id])
    // and acknowledged it: nothing is left pending in the group
    const checker = new Redis(url)
    let pending = -1
    const deadline = Date.now() + 20_000
    while (pending !== 0 && Date.now() < deadline) {
      pending = ((await checker.xpending(stream, 'agents')) as [number])[0]
      if (pending !== 0) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(pending).toBe(0)
    checker.disconnect()
    await sender.close()
    await survivor.close()
  })

  it('delivers each entry once when its consumer stalls mid-batch and another claims the rest: back, it skips what it no longer holds', async () => {
    const prefix = `stall-${Date.now()}`
    const claimIdleMs = 400
    const a = startPeer([prefix, 'worker', String(claimIdleMs), '1500'], stallingFixture)
    await until(() => a.lines.some((line) => line.event === 'ready'), a.stderr)
    // Three entries appended at once: the stalling consumer reads them in one batch.
    const { Redis } = await import('ioredis')
    const raw = new Redis(url)
    const contents = ['stall', 'second', 'third']
    const appended = raw.multi()
    for (const content of contents) {
      const envelope = createEnvelope({
        from: { agentId: 'ops' },
        to: { agentId: 'worker' },
        content,
      })
      appended.xadd(`${prefix}:inbox:worker`, '*', 'envelope', JSON.stringify(envelope))
    }
    await appended.exec()
    await until(() => a.lines.some((line) => line.content === 'stall'), a.stderr)
    // While it is stalled, another consumer of the group claims what it left unacknowledged.
    const b = createMessageBus({
      transport: createRedisRail({ url, prefix, blockMs: 50, claimIdleMs }),
    })
    const onB: string[] = []
    b.subscribe('worker', (message) => {
      onB.push(String(message.content))
    })
    await until(() => a.lines.some((line) => line.event === 'stalled'), a.stderr)
    // Back: it goes on with its batch, and every entry ends acknowledged.
    let pending = -1
    const deadline = Date.now() + 20_000
    while (pending !== 0 && Date.now() < deadline) {
      pending = ((await raw.xpending(`${prefix}:inbox:worker`, 'agents')) as [number])[0]
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(pending).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const onA = a.lines.filter((line) => line.event === 'delivered').map((line) => line.content)
    const deliveries = [...onA, ...onB]
    // The entry in hand when it stalled may be delivered twice (at least once); the rest once.
    expect(deliveries.filter((content) => content === 'second')).toHaveLength(1)
    expect(deliveries.filter((content) => content === 'third')).toHaveLength(1)
    expect(deliveries).toContain('stall')
    expect(onB).toEqual(expect.arrayContaining(['second', 'third']))
    raw.disconnect()
    await b.close()
  })

  it('rejects the rail start with a TransportError when Redis is unreachable', async () => {
    const port = await freePort()
    const bus = createMessageBus({
      transport: createRedisRail({ url: `redis://user:secret@127.0.0.1:${port}` }),
    })
    const error = await bus.ready().catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'TRANSPORT_FAILED' })
    expect((error as Error).message).toContain('redis://127.0.0.1')
    expect((error as Error).message).not.toContain('secret')
    await bus.close()
  })
})

async function until(condition: () => boolean, context: () => string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met in time\n${context()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
