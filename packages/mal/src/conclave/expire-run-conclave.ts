import type { RunPlanOptions, RunResult } from '../run/run-options'
import { processConclave } from './process-conclave'

/**
 * Expires a finished run's own keyspace (`retainMs` after the end, default at once). A paused
 * run keeps it for its resume; a sub-run that shares its root's keyspace leaves it alone.
 *
 * @example
 * const result = await executeRun(input).then((done) => expireRunConclave(options, done))
 */
export async function expireRunConclave(
  options: RunPlanOptions,
  result: RunResult,
): Promise<RunResult> {
  const space = options.conclave?.space
  if (result.status === 'paused' || (space !== undefined && space !== result.runId)) return result
  const store = options.conclave?.store ?? processConclave()
  await store.expire(result.runId, options.conclave?.retainMs ?? 0)
  return result
}
