import { useStore } from 'zustand'
import type { AdvancedAgentStoreState } from '../advanced-agent-store/create-advanced-agent-store'
import { useBatonStores } from './baton-context'

const whole = (state: AdvancedAgentStoreState) => state

/**
 * The swarm store of the nearest `<BatonProvider>` (swarms, `startSwarmRun`, runs and their
 * events), bound to React.
 *
 * @example
 * const run = useAdvancedAgentStore((state) => state.runs[runId])
 */
export function useAdvancedAgentStore(): AdvancedAgentStoreState
export function useAdvancedAgentStore<Selected>(
  selector: (state: AdvancedAgentStoreState) => Selected,
): Selected
export function useAdvancedAgentStore(
  selector?: (state: AdvancedAgentStoreState) => unknown,
): unknown {
  return useStore(useBatonStores().swarms, selector ?? whole)
}
