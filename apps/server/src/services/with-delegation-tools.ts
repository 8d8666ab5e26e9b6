import type { Agent } from '@baton/core'

/** The tools the agent host grants an agent whose card says `canDelegate`. */
export const DELEGATION_TOOLS = ['ask_peer', 'start_subagent'] as const

// Registries hand out frozen agents, so one copy per agent object serves every run of it.
const copies = new WeakMap<Agent, Agent>()

/**
 * A copy of the agent whose `tools` also name the delegation tools the host grants it: core
 * binds a run's extra tools only as the card lists them, so the grant goes on the card. The
 * agent itself (and what is stored) is left as it is.
 *
 * @example
 * withDelegationTools(orchestrator).tools // ['read_file', 'ask_peer', 'start_subagent']
 */
export function withDelegationTools(agent: Agent): Agent {
  const known = copies.get(agent)
  if (known) return known
  const tools = Object.freeze([...new Set([...(agent.tools ?? []), ...DELEGATION_TOOLS])])
  // Frozen like the original, so core checks the copy's card once rather than on every run.
  const copy = Object.freeze({ ...agent, tools }) as Agent
  copies.set(agent, copy)
  return copy
}
