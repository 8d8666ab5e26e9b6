import { BatonError } from '@baton/core'

/**
 * The run queue (Redis, with scale-out) did not take a job within its bound: the request that
 * wanted it queued is answered 503 and nothing of it is left to execute later.
 *
 * @example
 * throw new QueueUnavailableError({ runId, waitedMs: 5_000, cause: error })
 */
export class QueueUnavailableError extends BatonError {
  override name = 'QueueUnavailableError'
  constructor(options: { runId: string; waitedMs: number; cause?: unknown }) {
    super(
      'QUEUE_UNAVAILABLE',
      `The run queue did not take run "${options.runId}" within ${options.waitedMs} ms (Redis is unreachable); nothing was queued, retry later.`,
      { details: { runId: options.runId, waitedMs: options.waitedMs }, cause: options.cause },
    )
  }
}
