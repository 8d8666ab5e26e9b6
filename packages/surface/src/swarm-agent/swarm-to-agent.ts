import { type Agent, AgentSwarm, type AgentSwarmInput, parseWith, type Wallet } from '@baton/core'
import { swarmAgentId } from './swarm-agent-id'
import { swarmWallet } from './swarm-wallet'

export type SwarmToAgentOptions = {
  /** The agents the members refer to (a list or a look-up); their capabilities are gathered. */
  agents?: readonly Agent[] | ((agentId: string) => Agent | undefined)
  /** Who created the swarm (default: the swarm's placeholder address). */
  creator?: Wallet
  /** Timestamp for `createdAt` / `updatedAt` (default: now). */
  now?: Date
}

function lookUp(options: SwarmToAgentOptions): (agentId: string) => Agent | undefined {
  const agents = options.agents
  if (typeof agents === 'function') return agents
  const byId = new Map((agents ?? []).map((agent) => [agent.id, agent]))
  return (agentId) => byId.get(agentId)
}

/**
 * Turns a swarm into an agent so it can be listed and @mentioned: id `swarm_<swarm.id>`, the
 * swarm's name, type `orchestrator`, the members' capabilities (deduplicated, in member
 * order) and `agentCard.canDelegate === true`. Its model is the leader's (or first known
 * member's) model, `offline:default` when no member is known.
 *
 * @example
 * const agent = swarmToAgent(swarm, { agents })
 * agent.id // 'swarm_research'
 * agent.agentCard.canDelegate // true
 */
export function swarmToAgent(input: AgentSwarmInput, options: SwarmToAgentOptions = {}): Agent {
  const swarm = parseWith(AgentSwarm, input, 'swarm')
  const find = lookUp(options)
  const members = swarm.agents.flatMap((member) => {
    const agent = find(member.agentId)
    return agent ? [{ member, agent }] : []
  })
  const capabilities = [...new Set(members.flatMap(({ agent }) => agent.capabilities))]
  const lead = members.find(({ member }) => member.role === 'leader') ?? members[0]
  const model = lead?.agent.model ?? 'offline:default'
  const wallet = swarmWallet(swarm.id)
  const timestamp = (options.now ?? new Date()).toISOString()
  const description =
    swarm.description ??
    `A ${swarm.strategy} swarm of ${swarm.agents.length} ${swarm.agents.length === 1 ? 'agent' : 'agents'}.`
  return {
    id: swarmAgentId(swarm.id),
    wallet,
    creator: options.creator ?? wallet,
    name: swarm.name,
    description,
    type: 'orchestrator',
    model,
    provider: model.split(':')[0]!,
    capabilities,
    tools: [],
    memoryScope: 'agent',
    maxIterations: 8,
    temperature: 0.2,
    status: 'idle',
    createdAt: timestamp,
    updatedAt: timestamp,
    config: {
      swarmId: swarm.id,
      strategy: swarm.strategy,
      members: swarm.agents.map(({ agentId, role }) => ({ agentId, role })),
    },
    agentCard: {
      tagline: swarm.name,
      capabilityDescription: description,
      trustTier: 'low',
      canDelegate: true,
      a2aVersion: '0.3.0',
      examples: [],
    },
  }
}
