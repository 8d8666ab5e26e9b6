import type { Agent } from '@baton/core'

export type AgentFilter = {
  text: string
  kind: 'all' | 'agents' | 'swarms' | 'delegating'
  trustTier: 'any' | 'low' | 'medium' | 'high'
}

/**
 * The agents a search and the filters leave, in their order. The text matches name, id,
 * tagline, capability description, model, tools and capabilities, case-insensitively.
 *
 * @example
 * filterAgents(agents, { text: 'review', kind: 'all', trustTier: 'any' })
 */
export function filterAgents(agents: readonly Agent[], filter: AgentFilter): Agent[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean)
  return agents.filter((agent) => {
    const swarm = agent.id.startsWith('swarm_')
    if (filter.kind === 'agents' && swarm) return false
    if (filter.kind === 'swarms' && !swarm) return false
    if (filter.kind === 'delegating' && !agent.agentCard.canDelegate) return false
    if (filter.trustTier !== 'any' && agent.agentCard.trustTier !== filter.trustTier) return false
    const haystack = [
      agent.name,
      agent.id,
      agent.agentCard.tagline,
      agent.agentCard.capabilityDescription,
      agent.model,
      ...agent.tools,
      ...agent.capabilities,
    ]
      .join(' ')
      .toLowerCase()
    return words.every((word) => haystack.includes(word))
  })
}
