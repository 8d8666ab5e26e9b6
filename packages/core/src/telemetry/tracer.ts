import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api'

/** What the API's global provider is (a proxy of whichever copy of the API registered it). */
type MaybeProxy = TracerProvider & {
  getDelegate?: () => TracerProvider
  getDelegateTracer?: (name: string) => Tracer | undefined
}

type Entry = { provider: TracerProvider; delegate: TracerProvider | undefined; tracer: Tracer }

const tracers = new Map<string, Entry>()
const recording = new Map<string, Entry & { sdk: boolean }>()

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
  tracers.set(name, { provider, delegate: undefined, tracer })
  return tracer
}

/**
 * Baton's tracer when an SDK is registered, else undefined: with none, no span could record
 * and none is worth starting (the API's no-op spans only carry the parent's context, which
 * stays active anyway), so the instrumentation skips even the no-op calls. Re-checked at every
 * call, cheaply (the registered provider and its delegate are compared with the last seen), so
 * an SDK registered or disabled later is followed.
 *
 * @example
 * const tracer = recordingTracer()
 * if (!tracer) return work()
 */
export function recordingTracer(name = '@baton/core'): Tracer | undefined {
  const provider = trace.getTracerProvider() as MaybeProxy
  const delegate = provider.getDelegate?.()
  const cached = recording.get(name)
  if (cached?.provider === provider && cached.delegate === delegate) {
    return cached.sdk ? cached.tracer : undefined
  }
  // A proxy without a delegate has no SDK behind it; anything else is treated as an SDK.
  const sdk =
    typeof provider.getDelegateTracer !== 'function' ||
    provider.getDelegateTracer(name) !== undefined
  const tracer = provider.getTracer(name)
  recording.set(name, { provider, delegate, tracer, sdk })
  return sdk ? tracer : undefined
}
