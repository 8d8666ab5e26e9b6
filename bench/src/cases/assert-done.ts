import type { RunResult } from '@baton/mal'

/**
 * Throws unless a run ended `done`, saying why it did not (its error's code and message).
 *
 * @example
 * assertDone(await runPlan(plan, options))
 */
export function assertDone(result: RunResult): void {
  if (result.status === 'done') return
  const why = result.error ? `: ${result.error.code} ${result.error.message}` : ''
  throw new Error(`the plan ended ${result.status}${why}`)
}
