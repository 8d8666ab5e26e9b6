import { InvalidSwarmIdError } from './invalid-swarm-id-error'

/** Every agent that stands for a swarm has an id with this prefix; it is reserved for swarms. */
export const SWARM_AGENT_ID_PREFIX = 'swarm_'

const swarmIdPattern = /^[A-Za-z0-9_-]+$/

/**
 * True when `id` names a swarm agent, i.e. it starts with `swarm_`. The swarm id after the
 * prefix may still be malformed: `swarmIdFromAgentId` checks it.
 *
 * @example
 * isSwarmAgentId('swarm_research') // true
 * isSwarmAgentId('analyst') // false
 */
export function isSwarmAgentId(id: string): boolean {
  return id.startsWith(SWARM_AGENT_ID_PREFIX)
}

/**
 * True when `swarmId` is non-empty and uses only `[A-Za-z0-9_-]`.
 *
 * @example
 * isValidSwarmId('Team-2_b') // true
 * isValidSwarmId('bad id') // false
 */
export function isValidSwarmId(swarmId: string): boolean {
  return swarmIdPattern.test(swarmId)
}

/**
 * The swarm id inside a swarm agent id. Returns `null` for an id that is not a swarm agent
 * id at all (no `swarm_` prefix) and throws `InvalidSwarmIdError` for one that has the prefix
 * but a malformed swarm id (empty, or characters outside `[A-Za-z0-9_-]`), so a typo is
 * never mistaken for "not a swarm".
 *
 * @example
 * swarmIdFromAgentId('swarm_research') // 'research'
 * swarmIdFromAgentId('analyst') // null
 * swarmIdFromAgentId('swarm_') // throws InvalidSwarmIdError
 */
export function swarmIdFromAgentId(agentId: string): string | null {
  if (!isSwarmAgentId(agentId)) return null
  const swarmId = agentId.slice(SWARM_AGENT_ID_PREFIX.length)
  if (!isValidSwarmId(swarmId)) throw new InvalidSwarmIdError(swarmId, `agent id "${agentId}"`)
  return swarmId
}

/**
 * The agent id that stands for a swarm: `swarm_<swarmId>`.
 *
 * @example
 * swarmAgentId('research') // 'swarm_research'
 */
export function swarmAgentId(swarmId: string): string {
  if (!isValidSwarmId(swarmId)) throw new InvalidSwarmIdError(swarmId, 'swarmAgentId')
  return `${SWARM_AGENT_ID_PREFIX}${swarmId}`
}
