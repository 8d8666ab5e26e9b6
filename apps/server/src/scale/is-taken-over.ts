import { BatonError } from '@baton/core'

/**
 * True when `error`, or anything in its cause chain, is a `RunTakenOverError`: the process
 * lost its run to another one and must not record an outcome for it.
 *
 * @example
 * if (isTakenOver(error)) return // the process that took the run over records its outcome
 */
export function isTakenOver(error: unknown): boolean {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (BatonError.isInstance(current) && current.code === 'RUN_TAKEN_OVER') return true
  }
  return false
}
