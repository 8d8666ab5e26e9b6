import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api'

const tracers = new Map<string, { provider: TracerProvider; tracer: Tracer }>()

/**
 * The tracer Baton's packages start their spans on (`@opentelemetry/api`: a no-op until the
 * application registers an SDK). Cached per registered provider, not once: a tracer taken
 * before the SDK registers may belong to another copy of the API (its ESM and CommonJS builds
 * keep separate proxies) and would stay a no-op.
 *
 * @example
 * batonTracer('@baton/mal').startActiveSpan('invoke_workflow triage', (span) => span.end())
 */
export function batonTracer(name = '@baton/core'): Tracer {
  const provider = trace.getTracerProvider()
  const cached = tracers.get(name)
  if (cached?.provider === provider) return cached.tracer
  const tracer = provider.getTracer(name)
  tracers.set(name, { provider, tracer })
  return tracer
}
