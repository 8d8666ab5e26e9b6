import { type AgentInput, signAgentRegistration } from '@baton/core'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
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
