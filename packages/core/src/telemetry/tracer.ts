import { type Tracer, trace } from '@opentelemetry/api'

// The API hands out a proxy that follows whatever provider the application registers later,
// so one tracer per package name is enough; without a provider every span is a no-op.
const tracers = new Map<string, Tracer>()

/**
 * The tracer Baton's packages start their spans on (`@opentelemetry/api`: a no-op until the
 * application registers an SDK).
 *
 * @example
 * batonTracer('@baton/mal').startActiveSpan('invoke_workflow triage', (span) => span.end())
 */
export function batonTracer(name = '@baton/core'): Tracer {
  let tracer = tracers.get(name)
  if (!tracer) {
    tracer = trace.getTracer(name)
    tracers.set(name, tracer)
  }
  return tracer
}
