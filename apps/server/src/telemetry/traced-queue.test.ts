import { waitFor } from '@baton/testing/processes'
import { SpanKind, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createInProcessQueue, type RunJob } from '../queue'
import { tracedQueue } from './traced-queue'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => provider.register())
afterEach(() => exporter.reset())
afterAll(() => provider.shutdown())

describe('tracedQueue', () => {
  it('continues the trace of whoever queued a run, records it, and links a later attempt to the one before', async () => {
    const recorded = new Map<string, string>()
    const queue = tracedQueue(createInProcessQueue(), {
      name: 'baton-runs',
      system: 'baton.in-process',
      recordTrace: async (runId, { traceParent }) => {
        const before = recorded.get(runId) ?? null
        recorded.set(runId, traceParent)
        return before
      },
    })
    const seen: RunJob[] = []
    queue.process(async (job) => {
      seen.push(job)
    })
    const requestSpan = await trace
      .getTracer('test')
      .startActiveSpan('POST /api/v1/runs', async (span) => {
        await queue.add({ kind: 'start', runId: 'run-1' })
        span.end()
        return span
      })
    await waitFor(() => (seen.length === 1 ? true : undefined))
    // The same job again, as BullMQ hands it to the next worker when the first one died.
    await queue.add(seen[0]!)
    await waitFor(() => (seen.length === 2 ? true : undefined))
    await queue.close()
    await provider.forceFlush()

    const traceId = requestSpan.spanContext().traceId
    expect(seen[0]?.trace?.traceparent).toContain(traceId)
    const attempts = exporter
      .getFinishedSpans()
      .filter((span) => span.name === 'process baton-runs')
    expect(attempts).toHaveLength(2)
    const [first, second] = attempts
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(SpanKind.CONSUMER)
      expect(attempt.spanContext().traceId).toBe(traceId)
      expect(attempt.attributes['baton.run.id']).toBe('run-1')
    }
    expect(first?.parentSpanContext?.spanId).toBe(requestSpan.spanContext().spanId)
    expect(first?.links).toEqual([])
    expect(second?.links.map((link) => link.context.spanId)).toEqual([first?.spanContext().spanId])
    expect(recorded.get('run-1')).toContain(second?.spanContext().spanId)
  })

  it('leaves jobs untouched outside a span', async () => {
    const seen: RunJob[] = []
    const queue = tracedQueue(createInProcessQueue(), {
      name: 'baton-runs',
      system: 'baton.in-process',
    })
    queue.process(async (job) => {
      seen.push(job)
    })
    await queue.add({ kind: 'resume', runId: 'run-2' })
    await waitFor(() => (seen.length === 1 ? true : undefined))
    await queue.close()
    expect(seen[0]).toEqual({ kind: 'resume', runId: 'run-2' })
  })
})
