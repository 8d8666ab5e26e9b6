import { BatonError } from '@baton/core'
import type { SwarmRunState } from './apply-swarm-event'
import type { AdvancedAgentStore } from './create-advanced-agent-store'
import { SwarmRunFailedError } from './swarm-run-errors'

export type WaitForSwarmRunOptions = {
  signal?: AbortSignal
  /** Reject with `SwarmRunFailedError` (its reason included) unless the run ends `done`. */
  rejectOnFailure?: boolean
}

/**
 * Resolves with a run's state once it is no longer `running`: `done` with its `output`, or
 * `failed` / `cancelled` with `error: { code, message }` saying why (a delegation's
 * `success: true` only means the run started). With `rejectOnFailure`, a run that does not
 * end `done` rejects with `SwarmRunFailedError` instead. Rejects when the store does not know
 * the run, or when `signal` aborts first.
 *
 * @example
 * const runId = await swarms.getState().startSwarmRun('research', 'Compare Q1 and Q2')
 * const run = await waitForSwarmRun(swarms, runId)
 * if (run.status === 'done') console.log(run.output)
 * else console.error(run.status, run.error?.message)
 */
export function waitForSwarmRun(
  store: AdvancedAgentStore,
  runId: string,
  options: WaitForSwarmRunOptions = {},
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
      if (options.rejectOnFailure && run.status !== 'done') {
        reject(
          new SwarmRunFailedError({
            runId,
            swarmId: run.swarmId,
            status: run.status,
            error: run.error ?? { code: 'SWARM_RUN_FAILED', message: 'no reason was given' },
          }),
        )
      } else resolve(run)
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
