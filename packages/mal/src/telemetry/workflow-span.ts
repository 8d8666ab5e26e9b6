import { withSpan } from '@baton/core'
import { type Span, SpanStatusCode } from '@opentelemetry/api'

export type WorkflowSpanOptions = {
  /** The plan's or swarm's name (`gen_ai.workflow.name`). */
  name: string
  runId: string
  /** What runs: a MAL plan or a swarm. */
  kind: 'plan' | 'swarm'
  resumed?: boolean
  attributes?: Record<string, string | number | boolean>
}

type Outcome = { status: string; error?: { code: string; message: string } | undefined }

/**
 * Runs a plan or a swarm inside an `invoke_workflow {name}` span; the run id is its
 * `gen_ai.conversation.id` (every agent it invokes carries on that conversation). A run that
 * ends failed or cancelled (runs resolve rather than throw) marks the span failed with
 * `error.type` = the run's error code.
 *
 * @example
 * const result = await withWorkflowSpan({ name: 'triage', runId, kind: 'plan' }, () => execute())
 */
export function withWorkflowSpan<T extends Outcome>(
  options: WorkflowSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return withSpan(
    {
      name: `invoke_workflow ${options.name}`,
      tracer: '@baton/mal',
      attributes: () => ({
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.workflow.name': options.name,
        'gen_ai.conversation.id': options.runId,
        'baton.run.id': options.runId,
        'baton.run.kind': options.kind,
        ...(options.resumed ? { 'baton.run.resumed': true } : {}),
        ...options.attributes,
      }),
    },
    async (span) => {
      const result = await work(span)
      if (span.isRecording()) {
        span.setAttribute('baton.run.status', result.status)
        if (result.error && (result.status === 'failed' || result.status === 'cancelled')) {
          span.setAttribute('error.type', result.error.code)
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message })
        }
      }
      return result
    },
  )
}
