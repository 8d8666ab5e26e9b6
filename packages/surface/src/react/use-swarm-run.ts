import type { SwarmRunState } from '../advanced-agent-store/apply-swarm-event'
import { useAdvancedAgentStore } from './use-advanced-agent-store'

/**
 * One swarm run's state as its events arrive (`undefined` before it starts or once forgotten):
 * its outcome, since a delegation's `success: true` only says the run started. A run that
 * ends `failed` or `cancelled` has `error: { code, message }` saying why.
 *
 * @example
 * const run = useSwarmRun(result.runId)
 * return <p>{run?.status}: {run?.status === 'failed' ? run.error?.message : run?.output}</p>
 */
export function useSwarmRun(runId: string | undefined): SwarmRunState | undefined {
  return useAdvancedAgentStore((state) => (runId ? state.runs[runId] : undefined))
}
