import type { SwarmRunState } from '../advanced-agent-store/apply-swarm-event'
import { useAdvancedAgentStore } from './use-advanced-agent-store'

/**
 * One swarm run's state as its events arrive (`undefined` before it starts or once forgotten).
 *
 * @example
 * const run = useSwarmRun(result.runId)
 * return <p>{run?.status}: {run?.output}</p>
 */
export function useSwarmRun(runId: string | undefined): SwarmRunState | undefined {
  return useAdvancedAgentStore((state) => (runId ? state.runs[runId] : undefined))
}
