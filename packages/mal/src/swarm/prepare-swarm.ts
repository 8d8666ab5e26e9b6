import {
  Agent,
  AgentSwarm,
  type AgentSwarmInput,
  isTrustTierAtLeast,
  parseWith,
  TrustTierTooLowError,
  ValidationError,
} from '@baton/core'
import { SwarmMemberNotFoundError } from './swarm-errors'
import type { AgentSource, ResolvedSwarmMember } from './types'

export type PreparedSwarm = { swarm: AgentSwarm; members: ResolvedSwarmMember[] }

/**
 * Validates a swarm and resolves every member id to its agent, so a run never starts with
 * a member it cannot call.
 *
 * @example
 * const { swarm, members } = await prepareSwarm(swarmInput, agents)
 */
export async function prepareSwarm(
  input: AgentSwarm | AgentSwarmInput,
  agents: AgentSource,
): Promise<PreparedSwarm> {
  const swarm = parseWith(AgentSwarm, input, 'swarm')
  if (swarm.agents.every((member) => member.role === 'observer')) {
    throw new ValidationError('swarm', [
      { path: 'agents', message: 'needs at least one member that is not an observer' },
    ])
  }
  const lookup =
    typeof agents === 'function'
      ? agents
      : (agentId: string) => agents.find((agent) => agent.id === agentId)
  const members: ResolvedSwarmMember[] = []
  for (const [index, member] of swarm.agents.entries()) {
    const found = await lookup(member.agentId)
    if (!found) {
      throw new SwarmMemberNotFoundError({ swarmId: swarm.id, agentId: member.agentId, index })
    }
    const agent = parseWith(Agent, found, `agent "${member.agentId}" of swarm "${swarm.id}"`)
    if (agent.id !== member.agentId) {
      throw new SwarmMemberNotFoundError({ swarmId: swarm.id, agentId: member.agentId, index })
    }
    const tier = agent.agentCard.trustTier
    if (swarm.minTrustTier && !isTrustTierAtLeast(tier, swarm.minTrustTier)) {
      throw new TrustTierTooLowError({
        wallet: agent.wallet,
        tier,
        required: swarm.minTrustTier,
        where: `swarm "${swarm.id}"`,
      })
    }
    members.push({ ...member, agent })
  }
  return { swarm, members }
}
