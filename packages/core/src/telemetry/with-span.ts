import { type Attributes, type Link, type Span, SpanKind } from '@opentelemetry/api'
import { idleSpan } from './idle-span'
import { recordSpanFailure } from './record-span-failure'
import { recordingTracer } from './tracer'

export type WithSpanOptions = {
  name: string
  kind?: SpanKind
  /** Set only when the span records (no SDK: never built into a span). */
  attributes?: () => Attributes
  links?: Link[]
  /** The tracer's name (the package that starts the span). */
  tracer?: string
}

/**
 * Runs `work` inside a new active span (so spans started under it are its children), ends the
 * span when `work` settles, and marks it failed (status, `error.type`) when `work` throws.
 * With no SDK registered, `work` runs as it is, given a span that records nothing.
 *
 * @example
 * const text = await withSpan({ name: 'invoke_agent Ada', attributes: () => ({ 'gen_ai.agent.name': 'Ada' }) }, () => run())
 */
export function withSpan<T>(
  options: WithSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const tracer = recordingTracer(options.tracer)
  if (!tracer) return work(idleSpan())
  return tracer.startActiveSpan(
    options.name,
    // No object spread on this path: V8's spread copies cost microseconds a span.
    options.links
      ? { kind: options.kind ?? SpanKind.INTERNAL, links: options.links }
      : { kind: options.kind ?? SpanKind.INTERNAL },
    async (span) => {
      if (options.attributes && span.isRecording()) span.setAttributes(options.attributes())
      try {
        return await work(span)
      } catch (error) {
        recordSpanFailure(span, error)
        throw error
      } finally {
        span.end()
      }
    },
  )
}
