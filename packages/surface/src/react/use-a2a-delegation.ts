import { useMemo } from 'react'
import { createDelegation } from '../delegation/create-delegation'
import type { Delegation } from '../delegation/types'
import { useBatonStores } from './baton-context'

/**
 * Routes an @mention: `delegate(fromAgentId, toAgentId, task)` starts a swarm run for a
 * `swarm_<id>`, puts an A2A message on the bus for an agent that can delegate, and routes
 * nothing for any other agent (run it yourself). It never rejects; a failure is
 * `{ success: false, message }`. `forward` passes a delegated message on in its conversation.
 *
 * @example
 * const { delegate } = useA2ADelegation()
 * const result = await delegate('user', 'swarm_research', 'Compare Q1 and Q2')
 * if (!result.success) showError(result.message)
 */
export function useA2ADelegation(): Delegation {
  const { agents, swarms, comm } = useBatonStores()
  return useMemo(() => createDelegation({ agents, swarms, comm }), [agents, swarms, comm])
}
