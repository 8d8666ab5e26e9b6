import { context, propagation, trace } from '@opentelemetry/api'

/**
 * A request's headers with the active trace context added (W3C `traceparent`, `tracestate`),
 * so the agent on the other side continues the caller's trace. Outside a span (no SDK
 * registered) the headers are passed on as they are.
 *
 * @example
 * await fetch(url, { ...init, headers: withTraceHeaders(init?.headers) })
 */
export function withTraceHeaders(headers: HeadersInit | undefined): HeadersInit | undefined {
  const active = context.active()
  if (!trace.getSpan(active)) return headers
  const traced = new Headers(headers)
  propagation.inject(active, traced, {
    set: (carrier, key, value) => carrier.set(key, value),
  })
  return traced
}
