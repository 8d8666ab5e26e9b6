import { hasRedis, installRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { context, propagation, type Span, trace } from '@opentelemetry/api'
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import { LoopGuardError } from '../loop-guard/loop-guard-error'
import { createRedisRail } from '../rails/redis/create-redis-rail'
import { createWebSocketRail } from '../rails/websocket/create-websocket-rail'
import { signEnvelope } from '../signatures/sign-envelope'
import { verifyEnvelope } from '../signatures/verify-envelope'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => provider.register())
afterEach(() => exporter.reset())
// The worker runs other files after this one (isolate: false): they must not inherit the provider.
afterAll(async () => {
  await provider.shutdown()
  trace.disable()
  context.disable()
  propagation.disable()
})

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

// Taken after the provider registers: a tracer taken before it would stay a no-op.
const tracer = () => trace.getTracer('test')

/**
 * Sends one envelope from `sender` inside a span and, on `receiver`, starts a span in the
 * subscriber (as a hosted agent's turn does): returns both spans and the envelope received.
 */
async function sendAcross(sender: MessageBus, receiver: MessageBus) {
  const received = new Promise<{ envelope: Envelope; handled: Span }>((resolve) => {
    receiver.subscribe('analyst', (envelope) => {
      const handled = tracer().startSpan('handle')
      handled.end()
      resolve({ envelope, handled })
    })
  })
  const sent = await tracer().startActiveSpan('send', async (span) => {
    await sender.send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' })
    span.end()
    return span
  })
  const { envelope, handled } = await received
  await provider.forceFlush()
  const finished = (span: Span) =>
    exporter
      .getFinishedSpans()
      .find((each) => each.spanContext().spanId === span.spanContext().spanId) as ReadableSpan
  return { envelope, sent: finished(sent), handled: finished(handled) }
}

function expectChildOf(child: ReadableSpan, parent: ReadableSpan) {
  expect(child.spanContext().traceId).toBe(parent.spanContext().traceId)
  expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
}

describe('trace context on the bus', () => {
  it('carries the sender trace over the WebSocket rail to the subscriber of another bus', async () => {
    const listening = createWebSocketRail({ peerId: 'receiver-peer', listen: { port: 0 } })
    const receiver = createMessageBus({ transport: listening })
    closers.push(() => receiver.close())
    await receiver.ready()
    const port = listening.address()!.port
    const sender = createMessageBus({
      transport: createWebSocketRail({
        peerId: 'sender-peer',
        connect: [`ws://127.0.0.1:${port}`],
      }),
    })
    closers.push(() => sender.close())
    await sender.ready()

    const { envelope, sent, handled } = await sendAcross(sender, receiver)
    expect(envelope.metadata?.traceparent).toBe(
      `00-${sent.spanContext().traceId}-${sent.spanContext().spanId}-01`,
    )
    expectChildOf(handled, sent)
  })

  it.skipIf(!hasRedis && !process.env.CI)(
    'carries the sender trace over the Redis rail: the receiving side’s span is a child of the sender’s',
    async () => {
      const redis: RedisServer = await startRedisServer()
      closers.push(() => redis.stop())
      const prefix = `trace-${Date.now()}`
      const receiver = createMessageBus({ transport: createRedisRail({ url: redis.url, prefix }) })
      closers.unshift(() => receiver.close())
      const sender = createMessageBus({ transport: createRedisRail({ url: redis.url, prefix }) })
      closers.unshift(() => sender.close())
      await Promise.all([receiver.ready(), sender.ready()])

      const { envelope, sent, handled } = await sendAcross(sender, receiver)
      expect(envelope.metadata?.traceparent).toContain(sent.spanContext().spanId)
      expectChildOf(handled, sent)
    },
  )

  it('sends no metadata outside a span, and keeps signatures valid whatever the metadata says', async () => {
    const bus = createMessageBus()
    closers.push(() => bus.close())
    const plain = await bus.send({ from: { agentId: 'a' }, to: { agentId: 'b' }, content: 'x' })
    expect(plain.metadata).toBeUndefined()

    const { privateKeyToAccount } = await import('viem/accounts')
    const account = privateKeyToAccount(`0x${'11'.repeat(32)}`)
    const signed = await signEnvelope(plain, account)
    const relayed = {
      ...signed,
      metadata: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` },
    }
    expect(await verifyEnvelope(relayed, account.address)).toBe(true)
  })

  it('puts a loop-guard hold on the span of the send that was held', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1 } })
    closers.push(() => bus.close())
    await trace.getTracer('test').startActiveSpan('chain', async (span) => {
      const first = await bus.send({ from: { agentId: 'a' }, to: { agentId: 'b' }, content: 'x' })
      const second = await bus.forward(first, 'c')
      await expect(bus.forward(second, 'd')).rejects.toBeInstanceOf(LoopGuardError)
      span.end()
    })
    await provider.forceFlush()
    const [chain] = exporter.getFinishedSpans()
    expect(chain?.events.map((event) => event.name)).toContain('baton.loop_guard.hold')
  })

  it('puts a person’s allow and stop on the span of the request that decided, naming the escalation', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1 } })
    closers.push(() => bus.close())
    const hold = async (correlation: string) => {
      const first = await bus.send({
        from: { agentId: 'a' },
        to: { agentId: 'b' },
        content: correlation,
      })
      const second = await bus.forward(first, 'c')
      const refused = await bus.forward(second, 'd').catch((error: LoopGuardError) => error)
      expect(refused).toBeInstanceOf(LoopGuardError)
      return (refused as LoopGuardError).escalation!
    }
    const allowed = await hold('one')
    const stopped = await hold('two')
    await tracer().startActiveSpan('allow request', async (span) => {
      await bus.allow(allowed.id, 1)
      span.end()
    })
    await tracer().startActiveSpan('stop request', async (span) => {
      await bus.stop(stopped.id, 'enough')
      span.end()
    })
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const eventsOf = (name: string) =>
      spans
        .find((span) => span.name === name)
        ?.events.map((event) => [event.name, event.attributes])
    expect(eventsOf('allow request')).toEqual([
      [
        'baton.loop_guard.allow',
        { 'baton.escalation.id': allowed.id, 'baton.correlation.id': allowed.correlationId },
      ],
    ])
    expect(eventsOf('stop request')).toEqual([
      [
        'baton.loop_guard.stop',
        { 'baton.escalation.id': stopped.id, 'baton.correlation.id': stopped.correlationId },
      ],
    ])
  })
})

if (!hasRedis && !process.env.CI) {
  console.warn(`Skipping the Redis rail trace test: redis-server is not on PATH; ${installRedis}.`)
}
