import { BatonError } from '@baton/core'

/**
 * A bus message names a recipient that is neither a registered agent nor a party of the
 * conversation it is in: nobody would ever read it, so it is refused (404) before it is stored.
 *
 * @example
 * throw new UnknownAgentError({ agentId: 'nobody' })
 */
export class UnknownAgentError extends BatonError {
  override name = 'UnknownAgentError'
  constructor(options: { agentId: string; correlationId?: string | undefined }) {
    const where = options.correlationId
      ? ` nor a party of conversation "${options.correlationId}"`
      : ''
    super(
      'UNKNOWN_AGENT',
      `No agent "${options.agentId}" to send to: it is not a registered agent${where}. Send to a registered agent's id (GET /api/v1/agents), or answer a party that wrote in the conversation.`,
      {
        details: {
          field: 'to.agentId',
          agentId: options.agentId,
          ...(options.correlationId ? { correlationId: options.correlationId } : {}),
        },
      },
    )
  }
}
