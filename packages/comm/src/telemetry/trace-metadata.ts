import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api'

/**
 * The active trace context as envelope metadata (`traceparent`, `tracestate`), or undefined
 * when no span is active (no SDK registered: nothing is built).
 *
 * @example
 * const metadata = traceMetadata() // { traceparent: '00-…-…-01' } inside a span
 */
export function traceMetadata(): Record<string, string> | undefined {
  const active = context.active()
  if (!trace.getSpan(active)) return undefined
  const carrier: Record<string, string> = {}
  propagation.inject(active, carrier)
  return carrier.traceparent ? carrier : undefined
}

/**
 * Runs `work` in the trace context an envelope carries, so what a subscriber does (a hosted
 * agent's turn, a forward) joins the sender's trace, across processes and rails alike.
 *
 * @example
 * withEnvelopeContext(envelope, () => handler(envelope))
 */
export function withEnvelopeContext<T>(
  metadata: Record<string, string> | undefined,
  work: () => T,
): T {
  if (!metadata?.traceparent) return work()
  return context.with(propagation.extract(ROOT_CONTEXT, metadata), work)
}
