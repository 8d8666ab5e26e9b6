import { Agent, parseWith, ValidationError } from '@baton/core'
import { isSwarmAgentId, SWARM_AGENT_ID_PREFIX } from '../swarm-agent/swarm-agent-id'

/**
 * Parses one agent of a list with the `Agent` schema. An id starting with `swarm_` is refused
 * with a `ValidationError`: the prefix is reserved for swarms, and `delegate` sends such an id
 * to the swarm route, so an agent stored under it could never be reached. Swarms belong in the
 * swarm store; `listMentionableAgents` lists them beside the agents.
 *
 * @example
 * parseListedAgent(analyst, 'agents[0]') // the agent
 * parseListedAgent({ ...analyst, id: 'swarm_research' }, 'agents[1]') // throws VALIDATION_FAILED
 */
export function parseListedAgent(input: unknown, where: string): Agent {
  const id =
    typeof input === 'object' && input !== null ? (input as { id?: unknown }).id : undefined
  if (typeof id === 'string' && isSwarmAgentId(id)) {
    throw new ValidationError(where, [
      {
        path: 'id',
        message: `"${id}" starts with "${SWARM_AGENT_ID_PREFIX}", which is reserved for swarms (add the swarm to the swarm store instead)`,
      },
    ])
  }
  return parseWith(Agent, input, where)
}
