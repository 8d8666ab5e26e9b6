import { installRedis, runRedisTests, startRedisServer } from '@baton/testing/redis'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { Envelope } from '../envelope/envelope'
import { createMemoryLoopGuard } from './create-memory-loop-guard'
import { createRedisLoopGuard } from './create-redis-loop-guard'
import type { LoopGuard } from './loop-guard'

// The same generated sequences of send / forward / replay / allow / stop / time passing run
// against the memory guard and the Redis guard; every outcome must be the same. Steps pick
// recent messages and escalations, so chains get held, resolved, retried and left idle.

type Step =
  | { kind: 'send' }
  | { kind: 'forward'; message: number; to: string }
  | { kind: 'replay'; message: number; changed: boolean }
  | { kind: 'join'; message: number }
  | { kind: 'allow'; escalation: number; extraHops: number }
  | { kind: 'stop'; escalation: number }
  | { kind: 'time'; ms: number }

const agents = ['A', 'B', 'C']
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'send' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('forward' as const),
      message: fc.nat(3),
      to: fc.constantFrom(...agents),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('replay' as const),
      message: fc.nat(3),
      changed: fc.boolean(),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('join' as const), message: fc.nat(3) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('allow' as const),
      escalation: fc.nat(2),
      extraHops: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('stop' as const), escalation: fc.nat(2) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('time' as const),
      ms: fc.integer({ min: 1_000, max: 45_000 }),
    }),
    weight: 2,
  },
)

const maxAgeMs = 60_000

/** Runs `steps` on a bus over `guard`; returns what each step did and what was delivered. */
async function play(steps: Step[], createGuard: (now: () => number) => LoopGuard) {
  let now = 1_000_000
  const guard = createGuard(() => now)
  const bus = createMessageBus({ loopGuard: guard, now: () => now })
  const delivered: number[] = []
  const messages: Envelope[] = []
  const escalations: string[] = []
  for (const agentId of agents) {
    bus.subscribe(agentId, (message) => {
      delivered.push(messages.findIndex((known) => known.id === message.id))
    })
  }
  const outcomes: string[] = []
  const attempt = async (action: () => Promise<unknown>) => {
    try {
      const result = await action()
      if (result && typeof result === 'object' && 'correlationId' in result) {
        const envelope = result as Envelope
        if (!messages.some((known) => known.id === envelope.id)) messages.push(envelope)
        return `ok hop ${envelope.hop}`
      }
      return `ok ${(result as { status?: string }).status ?? ''}`
    } catch (error) {
      const { code, held, escalation, problem } = error as Record<string, unknown>
      const id = (escalation as { id?: string } | undefined)?.id
      if (id && !escalations.includes(id)) escalations.push(id)
      return `${String(code)}${held ? ' held' : ''}${problem ? ` ${String(problem)}` : ''}`
    }
  }
  for (const current of steps) {
    const message =
      messages.length > 0 && 'message' in current
        ? messages[messages.length - 1 - (current.message % messages.length)]
        : undefined
    const escalation =
      escalations.length > 0 && 'escalation' in current
        ? escalations[escalations.length - 1 - (current.escalation % escalations.length)]
        : undefined
    switch (current.kind) {
      case 'send':
        outcomes.push(
          await attempt(() =>
            bus.send({ from: { agentId: 'A' }, to: { agentId: 'B' }, content: 'go' }),
          ),
        )
        break
      case 'forward':
        outcomes.push(message ? await attempt(() => bus.forward(message, current.to)) : 'skip')
        break
      case 'replay':
        outcomes.push(
          message
            ? await attempt(() =>
                bus.relay(current.changed ? { ...message, content: 'changed' } : { ...message }),
              )
            : 'skip',
        )
        break
      case 'join':
        // a new message that names an existing correlation, as a retry of a stopped chain does
        outcomes.push(
          message
            ? await attempt(() =>
                bus.send({
                  from: { agentId: 'C' },
                  to: { agentId: 'A' },
                  content: 'join',
                  correlationId: message.correlationId,
                }),
              )
            : 'skip',
        )
        break
      case 'allow':
        outcomes.push(
          escalation ? await attempt(() => bus.allow(escalation, current.extraHops)) : 'skip',
        )
        break
      case 'stop':
        outcomes.push(escalation ? await attempt(() => bus.stop(escalation, 'stop')) : 'skip')
        break
      case 'time':
        now += current.ms
        outcomes.push('time')
        break
    }
  }
  const hops = await Promise.all(messages.map((message) => guard.hops(message.correlationId)))
  const statuses = (await guard.escalations()).map((escalation) => escalation.status).sort()
  await bus.close()
  await guard.close()
  return { outcomes, delivered, hops, statuses }
}

let redis: { url: string; stop: () => void } | undefined
beforeAll(async () => {
  if (runRedisTests) redis = await startRedisServer()
})
afterAll(() => redis?.stop())

describe.skipIf(!runRedisTests)('createMemoryLoopGuard and createRedisLoopGuard (property)', () => {
  it('decide every generated sequence the same way', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        fc.array(step, { minLength: 10, maxLength: 40 }),
        async (maxHops, steps) => {
          run += 1
          const memory = await play(steps, (now) =>
            createMemoryLoopGuard({ maxHops, maxAgeMs, now }),
          )
          const shared = await play(steps, (now) =>
            createRedisLoopGuard({
              url: redis?.url ?? '',
              prefix: `property-${process.pid}-${run}`,
              maxHops,
              maxAgeMs,
              now,
            }),
          )
          expect(shared).toEqual(memory)
        },
      ),
      { numRuns: 150 },
    )
  }, 120_000)
})

if (!runRedisTests) console.warn(`Skipping the shared loop guard property: ${installRedis}.`)
