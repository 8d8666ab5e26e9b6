import type { FastifyRequest } from 'fastify'
import { assertOwned } from '../auth/owned'
import type { Repositories } from '../db/repositories'
import { UnknownAgentError } from './unknown-agent-error'

/**
 * Refuses a message nobody would read: its recipient must be a registered agent (the registry
 * is the database, so an agent registered through another server process counts), or a party
 * that already wrote or was written to in the conversation it names, such as the outside
 * sender a reply answers. Outside parties may send without registering; they may be written
 * to only inside a conversation they are part of.
 *
 * @example
 * await assertKnownRecipient(request, repositories, { to: { agentId: 'nobody' } }) // UNKNOWN_AGENT
 */
export async function assertKnownRecipient(
  request: FastifyRequest,
  repositories: Pick<Repositories, 'agents' | 'messages'>,
  message: { to: { agentId: string }; correlationId?: string | undefined },
): Promise<void> {
  const { agentId } = message.to
  if (await repositories.agents.findById(agentId)) return
  const { correlationId } = message
  if (correlationId) {
    // Whether someone is a party of a conversation is its owner's to know, not a stranger's.
    const owner = await repositories.messages.conversationOwner(correlationId)
    if (owner !== undefined) assertOwned(request, owner, 'steer', 'conversation', correlationId)
    if (await repositories.messages.isParty(correlationId, agentId)) return
  }
  throw new UnknownAgentError({ agentId, correlationId })
}
