import { AgentSwarm, parseWith } from '@baton/core'

/**
 * Validates a list of swarms with the `AgentSwarm` schema; the error names the bad one.
 *
 * @example
 * parseSwarmList(await response.json())
 */
export function parseSwarmList(list: readonly unknown[]): AgentSwarm[] {
  return list.map((item, index) => parseWith(AgentSwarm, item, `swarms[${index}]`))
}
