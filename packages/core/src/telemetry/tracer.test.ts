import { context, propagation, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterEach, describe, expect, it } from 'vitest'
import { makeAgent } from '../agent/__fixtures__/make-agent'
import { runAgent } from '../agent/run-agent'
import { createBudget } from '../budget'
import { startChatSpan } from './chat-span'
import { type ModelCallRecord, onTelemetry } from './telemetry-listeners'
import { recordingTracer } from './tracer'
import { withSpan } from './with-span'

const providers: NodeTracerProvider[] = []
function registerSdk() {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  providers.push(provider)
  return exporter
}
afterEach(async () => {
  trace.disable()
  context.disable()
  propagation.disable()
  for (const provider of providers.splice(0)) await provider.shutdown()
})

describe('recordingTracer', () => {
  it('gives no tracer without an SDK, follows one registered later, and lets go when it is disabled', async () => {
    expect(recordingTracer()).toBeUndefined()
    const exporter = registerSdk()
    expect(recordingTracer()).toBeDefined()
    await runAgent(makeAgent(), 'Hi', { budget: createBudget() })
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      'chat default',
      'invoke_agent Ada',
    ])
    trace.disable()
    expect(recordingTracer()).toBeUndefined()
  })

  it('runs the work of a span without an SDK as it is, in the context it was called in', async () => {
    const key = Symbol('caller')
    const outer = context.active().setValue(key, 'kept')
    const seen = await context.with(outer, () =>
      withSpan({ name: 'invoke_agent Ada' }, async (span) => ({
        recording: span.isRecording(),
        value: context.active().getValue(key),
      })),
    )
    expect(seen).toEqual({ recording: false, value: undefined })
    // With no context manager the API keeps no context; with the SDK's it is the caller's.
    registerSdk()
    trace.disable()
    const kept = await context.with(outer, () =>
      withSpan({ name: 'invoke_agent Ada' }, async () => context.active().getValue(key)),
    )
    expect(kept).toBe('kept')
  })

  it('still measures model calls for metrics listeners without an SDK', async () => {
    const calls: ModelCallRecord[] = []
    const stop = onTelemetry({ modelCall: (call) => calls.push(call) })
    try {
      const chat = startChatSpan({ model: 'openai:gpt-4o', call: { prompt: [] } })
      chat.finish({ inputTokens: 3, outputTokens: 2, costUsd: 0.5 })
    } finally {
      stop()
    }
    expect(calls).toEqual([
      expect.objectContaining({
        provider: 'openai',
        model: 'gpt-4o',
        inputTokens: 3,
        costUsd: 0.5,
      }),
    ])
  })
})
