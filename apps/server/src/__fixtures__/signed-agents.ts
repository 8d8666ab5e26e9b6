import { type AgentInput, signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { testRegistryId } from '../settings'

/** A creator and an agent account with fresh keys, and an agent record of theirs. */
export function newAgentAccounts(id = `agent-${Math.random().toString(36).slice(2, 8)}`) {
  const creator = privateKeyToAccount(generatePrivateKey())
  const agentAccount = privateKeyToAccount(generatePrivateKey())
  const stamp = '2026-01-01T00:00:00.000Z'
  const agent: AgentInput = {
    id,
    wallet: agentAccount.address,
    creator: creator.address,
    name: `Agent ${id}`,
    type: 'specialist',
    model: 'offline:default',
    capabilities: ['analysis'],
    createdAt: stamp,
    updatedAt: stamp,
  }
  return { creator, agentAccount, agent }
}

/** A registration body for a new agent, signed by both of its accounts. */
export async function signedRegistration(id?: string) {
  const accounts = newAgentAccounts(id)
  const body = await signAgentRegistration(accounts.agent, {
    ...accounts,
    registry: testRegistryId,
  })
  return { ...accounts, body }
}

/**
 * `PATCH /api/v1/agents/:wallet` with `changes`, signed by the agent's creator.
 *
 * @example
 * const response = await patchAgent(app, { agent, creator }, { name: 'Renamed' })
 */
export async function patchAgent(
  app: Pick<FastifyInstance, 'inject'>,
  { agent, creator }: { agent: AgentInput; creator: PrivateKeyAccount },
  changes: Record<string, unknown>,
) {
  return app.inject({
    method: 'PATCH',
    url: `/api/v1/agents/${agent.wallet}`,
    payload: await signAgentChange('update', agent, {
      registry: testRegistryId,
      creator,
      changes,
    }),
  })
}
