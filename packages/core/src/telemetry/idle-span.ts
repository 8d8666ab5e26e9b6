import { INVALID_SPAN_CONTEXT, type Span, trace } from '@opentelemetry/api'

let invalid: Span | undefined

/**
 * The span instrumentation hands its work when no SDK is registered: the active one (a
 * non-recording span that carries a propagated parent's context, if any), or one that records
 * nothing and belongs to no trace; what the API's no-op tracer would have given, without
 * starting anything.
 *
 * @example
 * if (!tracer) return work(idleSpan())
 */
export function idleSpan(): Span {
  const active = trace.getActiveSpan()
  if (active) return active
  invalid ??= trace.wrapSpanContext(INVALID_SPAN_CONTEXT)
  return invalid
}
