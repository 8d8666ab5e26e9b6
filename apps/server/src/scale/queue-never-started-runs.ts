import type { FastifyBaseLogger } from 'fastify'
import type { RunService } from '../services/run-service'

export type QueueNeverStartedRunsOptions = {
  runs: Pick<RunService, 'queueNeverStarted'>
  /** How often every process looks (the lease: a dead process's runs wait about as long). */
  everyMs: number
  /**
   * How old a run must be to be looked at: older than a living process takes to queue it (or,
   * when Redis refuses it, to delete it again).
   */
  graceMs: number
  /** Runs queued again per look, oldest first (the next look takes the rest). */
  limit?: number
  logger: FastifyBaseLogger
}

/**
 * Among many processes, a run stored by a process that died before it queued the run has no
 * job, and no process would start it: every process looks for such runs at start and then
 * every `everyMs`, and queues them again (keyed by the run, so a run whose job is waiting or
 * running is not queued twice). Resolves once the first look is done; `stop` ends the looking
 * and waits for a look in progress.
 *
 * @example
 * const looking = await queueNeverStartedRuns({ runs, everyMs: 30_000, graceMs: 35_000, logger })
 * await looking.stop()
 */
export async function queueNeverStartedRuns(
  options: QueueNeverStartedRunsOptions,
): Promise<{ stop(): Promise<void> }> {
  const { runs, everyMs, graceMs, limit = 500, logger } = options
  let looking: Promise<void> | undefined
  let stopped = false
  const look = () => {
    if (stopped || looking) return looking
    looking = runs
      .queueNeverStarted({ storedBefore: new Date(Date.now() - graceMs), limit })
      .then(
        (queued) => {
          if (queued.length > 0) {
            logger.warn({ runs: queued }, 'runs stored and never queued, queued again')
          }
        },
        // Redis or the database away: the next look tries again.
        (error: unknown) => logger.warn({ err: error }, 'looking for runs never queued failed'),
      )
      .finally(() => {
        looking = undefined
      })
    return looking
  }
  await look()
  const timer = setInterval(() => void look(), everyMs)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await looking
    },
  }
}
