import { Agent, parseWith } from '@baton/core'
import { isSwarmAgentId, swarmIdFromAgentId } from '../swarm-agent/swarm-agent-id'

/**
 * Parses one agent of a list with the `Agent` schema. A swarm agent (`swarm_<id>`) keeps its
 * id even when the swarm id has capitals, which a registered agent's slug may not; its swarm
 * id is still checked (`InvalidSwarmIdError` when malformed).
 *
 * @example
 * parseListedAgent(swarmToAgent(swarm), 'agents[0]')
 */
export function parseListedAgent(input: unknown, where: string): Agent {
  if (typeof input === 'object' && input !== null) {
    const id = (input as { id?: unknown }).id
    if (typeof id === 'string' && isSwarmAgentId(id)) {
      swarmIdFromAgentId(id)
      return { ...parseWith(Agent, { ...input, id: 'swarm' }, where), id }
    }
  }
  return parseWith(Agent, input, where)
}
