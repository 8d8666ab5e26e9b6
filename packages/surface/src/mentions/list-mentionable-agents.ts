import type { Agent, AgentSwarm } from '@baton/core'
import { swarmToAgent } from '../swarm-agent/swarm-to-agent'

/**
 * The agents a person can @mention: the known agents, then each swarm as an agent
 * (`swarmToAgent`) unless an agent with its id is already listed.
 *
 * @example
 * parseMentions(text, listMentionableAgents(agents, swarms))
 */
export function listMentionableAgents(
  agents: readonly Agent[],
  swarms: readonly AgentSwarm[],
): Agent[] {
  const listed = new Set(agents.map((agent) => agent.id))
  const swarmAgents = swarms
    .map((swarm) => swarmToAgent(swarm, { agents }))
    .filter((agent) => !listed.has(agent.id))
  return [...agents, ...swarmAgents]
}
