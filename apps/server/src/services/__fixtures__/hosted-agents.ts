import { Agent, type AgentInput } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { newAgentAccounts } from '../../__fixtures__/signed-agents'

export type Envelope = {
  id: string
  type: string
  content: string
  correlationId: string
  hop: number
  to: { agentId: string }
}

/**
 * Stores an agent (offline model) with the given fields in the app's database, as a
 * registration would.
 *
 * @example
 * const agent = await hostAgent(app, 'lead', { agentCard: { canDelegate: true } })
 */
export async function hostAgent(
  app: FastifyInstance,
  id: string,
  fields: Partial<AgentInput> = {},
): Promise<Agent> {
  const { agent, creator } = newAgentAccounts(id)
  const parsed = Agent.parse({ ...agent, ...fields })
  await app.baton.repositories.agents.insert(parsed, creator.address)
  return parsed
}

/**
 * Sends `content` from a person to `agentId` over `POST /api/v1/messages` and waits for the
 * reply that comes back to the person; every envelope of the conversation, in order.
 *
 * @example
 * const messages = await converse(app, 'lead', '[[answer:done]]')
 */
export async function converse(
  app: FastifyInstance,
  agentId: string,
  content: string,
): Promise<Envelope[]> {
  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/messages',
    payload: { from: { agentId: 'person' }, to: { agentId }, content },
  })
  if (sent.statusCode !== 202) throw new Error(`message refused: ${sent.body}`)
  const { envelope } = sent.json() as { envelope: Envelope }
  return waitFor(
    async () => {
      const read = await app.inject({
        method: 'GET',
        url: `/api/v1/conversations/${envelope.correlationId}`,
      })
      const messages = read.json().messages as Envelope[]
      const answered = messages.some(
        (message) => message.type === 'reply' && message.to.agentId === 'person',
      )
      return answered ? messages : undefined
    },
    { what: `the reply of ${agentId}` },
  )
}

/** The spend the ledger holds for `wallet` (calls 0 when it holds none). */
export async function spendOf(app: FastifyInstance, wallet: string): Promise<{ calls: number }> {
  const rows = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=wallet' })).json()
    .spend as { wallet: string; calls: number }[]
  return rows.find((row) => row.wallet === wallet) ?? { calls: 0 }
}
