import { BatonError } from '@baton/core'

/**
 * A process tried to commit to a run it no longer holds: another process took it over (its
 * lease expired), or it was cancelled or finished elsewhere. Nothing is written.
 *
 * @example
 * throw new RunTakenOverError({ runId, executedBy: 'host-a:42' })
 */
export class RunTakenOverError extends BatonError {
  override name = 'RunTakenOverError'
  constructor(options: { runId: string; executedBy: string }) {
    super(
      'RUN_TAKEN_OVER',
      `Run "${options.runId}" is no longer held by ${options.executedBy}: it was taken over, cancelled or finished elsewhere.`,
      { details: { ...options } },
    )
  }
}
