import { useStore } from 'zustand'
import type { AgentStoreState } from '../agent-store/create-agent-store'
import { useBatonStores } from './baton-context'

const whole = (state: AgentStoreState) => state

/**
 * The agent store of the nearest `<BatonProvider>`, bound to React. Pass a selector to
 * re-render only when what it picks changes.
 *
 * @example
 * const agents = useAgentStore((state) => state.agents)
 */
export function useAgentStore(): AgentStoreState
export function useAgentStore<Selected>(selector: (state: AgentStoreState) => Selected): Selected
export function useAgentStore(selector?: (state: AgentStoreState) => unknown): unknown {
  return useStore(useBatonStores().agents, selector ?? whole)
}
