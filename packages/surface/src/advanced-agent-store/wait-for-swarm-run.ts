import { BatonError } from '@baton/core'
import type { SwarmRunState } from './apply-swarm-event'
import type { AdvancedAgentStore } from './create-advanced-agent-store'

/**
 * Resolves with a run's state once it is no longer `running` (done, failed or cancelled).
 * Rejects when the store does not know the run, or when `signal` aborts first.
 *
 * @example
 * const runId = await swarms.getState().startSwarmRun('research', 'Compare Q1 and Q2')
 * const run = await waitForSwarmRun(swarms, runId)
 * console.log(run.status, run.output)
 */
export function waitForSwarmRun(
  store: AdvancedAgentStore,
  runId: string,
  options: { signal?: AbortSignal } = {},
): Promise<SwarmRunState> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const run = store.getState().runs[runId]
      if (!run) {
        reject(
          new BatonError('SWARM_RUN_NOT_FOUND', `No swarm run "${runId}" is in the store.`, {
            details: { runId },
          }),
        )
        return true
      }
      if (run.status === 'running') return false
      resolve(run)
      return true
    }
    if (check()) return
    const onAbort = () => {
      stop()
      reject(options.signal?.reason)
    }
    const stop = store.subscribe(() => {
      if (check()) {
        stop()
        options.signal?.removeEventListener('abort', onAbort)
      }
    })
    if (options.signal?.aborted) onAbort()
    else options.signal?.addEventListener('abort', onAbort, { once: true })
  })
}
