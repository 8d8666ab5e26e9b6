import { batonTracer, recordSpanFailure } from '@baton/core'
import {
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  trace,
} from '@opentelemetry/api'
import type { RunJob, RunQueue } from '../queue'

export type TracedQueueOptions = {
  /** The queue's name, as spans call it (`process baton-runs`). */
  name: string
  /** `bullmq` among many processes, `baton.in-process` alone. */
  system: string
  /**
   * Stores the trace of the attempt starting on a run and answers the `traceparent` of the
   * attempt before it (its span is linked to). Called only when spans are recorded.
   */
  recordTrace?: (
    runId: string,
    trace: { traceId: string; traceParent: string },
  ) => Promise<string | null>
  onError?: (error: unknown) => void
}

/**
 * Carries trace context through the run queue: `add` puts the caller's context in the job
 * (W3C `traceparent`, BullMQ's job data among many processes), and each job runs inside a
 * `process {queue}` CONSUMER span that continues it, linked to the span of the run's previous
 * attempt (a process killed mid-run never ended its span; the taking-over one links to it).
 * Without a registered SDK both ends are no-ops.
 *
 * @example
 * const queue = tracedQueue(createInProcessQueue(), { name: 'baton-runs', system: 'baton.in-process' })
 */
export function tracedQueue(queue: RunQueue, options: TracedQueueOptions): RunQueue {
  return {
    add(job, added) {
      const carrier: Record<string, string> = {}
      propagation.inject(context.active(), carrier)
      return queue.add(carrier.traceparent ? { ...job, trace: carrier } : job, added)
    },
    process(handler) {
      queue.process((job, lease) => {
        const parent = job.trace ? propagation.extract(ROOT_CONTEXT, job.trace) : ROOT_CONTEXT
        return batonTracer('@baton/server').startActiveSpan(
          `process ${options.name}`,
          { kind: SpanKind.CONSUMER },
          parent,
          async (span) => {
            if (span.isRecording()) {
              span.setAttributes({
                'messaging.system': options.system,
                'messaging.operation.type': 'process',
                'messaging.destination.name': options.name,
                'baton.run.id': job.runId,
                'baton.job.kind': job.kind,
              })
              await linkPreviousAttempt(job, span.spanContext(), options).then(
                (link) => link && span.addLink(link),
                (error: unknown) => options.onError?.(error),
              )
            }
            try {
              await handler(job, lease)
            } catch (error) {
              recordSpanFailure(span, error)
              throw error
            } finally {
              span.end()
            }
          },
        )
      })
    },
    pause: () => queue.pause(),
    size: () => queue.size(),
    depth: () => queue.depth?.() ?? Promise.resolve(queue.size()),
    close: () => queue.close(),
  }
}

async function linkPreviousAttempt(
  job: RunJob,
  own: SpanContext,
  options: TracedQueueOptions,
): Promise<Link | undefined> {
  if (!options.recordTrace) return undefined
  const traceParent = traceParentOf(own)
  const previous = await options.recordTrace(job.runId, { traceId: own.traceId, traceParent })
  if (!previous || previous === traceParent) return undefined
  const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent: previous }))
  if (!linked) return undefined
  return { context: linked, attributes: { 'baton.link.kind': 'previous-attempt' } }
}

function traceParentOf(span: SpanContext): string {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0')
  return `00-${span.traceId}-${span.spanId}-${flags}`
}
