import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { Envelope } from '../envelope/envelope'
import { LoopGuardError } from '../loop-guard/loop-guard-error'
import { createWebSocketRail } from '../rails/websocket/create-websocket-rail'
import { signEnvelope } from '../signatures/sign-envelope'
import { verifyEnvelope } from '../signatures/verify-envelope'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => provider.register())
afterEach(() => exporter.reset())
afterAll(() => provider.shutdown())

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

describe('trace context on the bus', () => {
  it('carries the sender trace over the WebSocket rail to the subscriber of another bus', async () => {
    const listening = createWebSocketRail({ peerId: 'receiver-peer', listen: { port: 0 } })
    const receiver = createMessageBus({ transport: listening })
    closers.push(() => receiver.close())
    const seen: { traceId: string | undefined; envelope: Envelope }[] = []
    const delivered = new Promise<void>((resolve) => {
      receiver.subscribe('analyst', (envelope) => {
        seen.push({ traceId: trace.getActiveSpan()?.spanContext().traceId, envelope })
        resolve()
      })
    })
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

    const traceId = await trace.getTracer('test').startActiveSpan('send', async (span) => {
      await sender.send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' })
      span.end()
      return span.spanContext().traceId
    })
    await delivered
    expect(seen[0]?.envelope.metadata?.traceparent).toContain(traceId)
    expect(seen[0]?.traceId).toBe(traceId)
  })

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
})
