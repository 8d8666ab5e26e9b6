import { type Attributes, type Span, SpanKind } from '@opentelemetry/api'
import { idleSpan } from './idle-span'
import { recordingTracer } from './tracer'
import { withSpan } from './with-span'

export type AgentSpanOptions = {
  /** The agent's wallet: `gen_ai.agent.id`. */
  wallet: string
  name: string
  /** The `provider:model-id` of its card. */
  model?: string
  /** CLIENT when the agent runs elsewhere (an A2A call); INTERNAL when it runs here. */
  kind?: SpanKind
  /** The conversation the message belongs to (`gen_ai.conversation.id`), when there is one. */
  conversationId?: string
}

/**
 * Runs an agent's turn inside an `invoke_agent {name}` span: its model calls and tool calls
 * are children of it, and a failure marks it (status, `error.type` = the Baton error code).
 *
 * @example
 * const result = await withAgentSpan({ wallet: agent.wallet, name: agent.agentCard.name }, () => work())
 */
export function withAgentSpan<T>(
  options: AgentSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  // No SDK: not even the span's name and options are built.
  if (!recordingTracer()) return work(idleSpan())
  return withSpan(
    {
      name: `invoke_agent ${options.name}`,
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: () => {
        const attributes: Attributes = {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': options.wallet,
          'gen_ai.agent.name': options.name,
        }
        // Set one by one, not spread: a spread per span costs more than the span's own work.
        if (options.model) attributes['baton.agent.model'] = options.model
        if (options.conversationId) attributes['gen_ai.conversation.id'] = options.conversationId
        return attributes
      },
    },
    work,
  )
}
