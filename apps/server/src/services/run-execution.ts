import { isDatabaseFault } from '../db/database-errors'
import type { RunStatus } from '../db/runs-repository'
import type { JobLease, RunJob } from '../queue'
import { isTakenOver } from '../scale/is-taken-over'
import { executePlan } from './plan-run'
import { countSpendOfCancelled } from './run-cancel'
import { type Active, LeaseLost, type RunContext } from './run-context'
import { interruptWhenBack } from './run-recovery'
import { executeSwarm } from './swarm-run'

const executable: readonly RunStatus[] = ['queued', 'running']

/**
 * Takes the queue's jobs: each executes here, one job of a run at a time.
 *
 * @example
 * const context = createRunContext(options)
 * processJobs(context)
 */
export function processJobs(context: RunContext): void {
  context.options.queue.process((job, lease) => {
    // A job may come back to the process still executing its run (its lease ran out while
    // Redis was away, and this process took the job again). The fence is this process's name,
    // so a second execution here would not be refused: it waits for the first, and then finds
    // the run finished (and stops) or left unfinished (and continues it).
    const previous = context.byRun.get(job.runId)
    const work = previous
      ? previous.then(() => executeJob(context, job, lease))
      : executeJob(context, job, lease)
    const tracked: Promise<void> = work
      .catch(() => {})
      .finally(() => {
        context.executing.delete(tracked)
        if (context.byRun.get(job.runId) === tracked) context.byRun.delete(job.runId)
      })
    context.executing.add(tracked)
    context.byRun.set(job.runId, tracked)
    return work
  })
}

/**
 * Executes one job: the run's plan or swarm, and what becomes of it when that fails. With a
 * `lease` (scale-out), a run another process has claimed since this one lost the lease stops
 * at once, and this process records nothing of it.
 */
export async function executeJob(
  context: RunContext,
  job: RunJob,
  lease?: JobLease,
): Promise<void> {
  if (context.draining) {
    // Taken as the queue was paused: the run never started here. It stays queued, for
    // another process (handed back) or for this one's next start.
    const run = await context.runs.find(job.runId)
    if (run && executable.includes(run.status) && context.options.handOverOnShutdown) {
      await context.options.queue.add(job)
    }
    return
  }
  // Only a queued run starts (a running one is taken over): a job whose run is gone, paused,
  // interrupted or final was given up on by the request that added it, or ran already. The
  // run is read and claimed at once; `run` is the row as it was before the claim.
  const claimed = await context.runs.claimToExecute(job.runId, context.me)
  if (!claimed || claimed.attempt === 0) return
  const { run, attempt } = claimed
  const controller = new AbortController()
  let settle!: () => void
  const active: Active = {
    controller,
    draining: context.draining,
    done: new Promise<void>((resolve) => {
      settle = resolve
    }),
  }
  context.active.set(run.id, active)
  // The lease could not be renewed: once another process has claimed the run, its step stops
  // here rather than spend on a run that one continues. Until then (the job may come back to
  // this process) it goes on, and each failed renewal looks again.
  const stopListening = lease?.onLost(() => {
    if (controller.signal.aborted) return
    context.runs.find(run.id).then(
      (now) => {
        if (now && now.executedBy !== context.me) controller.abort(new LeaseLost())
      },
      () => {},
    )
  })
  // A run executed again (taken over, resumed, answered) streams its step anew: the text a
  // former attempt streamed, here or elsewhere, is not this one's.
  if (attempt > 1) context.notifier.forget(run.id)
  try {
    if (job.kind === 'swarm') await executeSwarm(context, run, attempt, active)
    else await executePlan(context, run, job, attempt, active)
  } catch (error) {
    // Another process holds the run now: it records the outcome, not this one.
    if (isTakenOver(error) || controller.signal.reason instanceof LeaseLost) {
      context.options.logger.warn({ runId: run.id }, 'run taken over by another process')
      await countSpendOfCancelled(context, run.id, active).catch((recountError: unknown) => {
        context.options.logger.warn({ err: recountError, runId: run.id }, 'recount refused')
      })
      return
    }
    // Among many processes the queue tries the job again (BullMQ: attempts with a backoff),
    // from the last committed step; a single process leaves the run interrupted, resumable.
    const retriedByQueue = context.options.handOverOnShutdown === true
    if (isDatabaseFault(error)) {
      context.options.logger.error({ err: error, runId: run.id }, 'run stopped by a database fault')
      if (retriedByQueue) throw error
      interruptWhenBack(context, run.id)
      return
    }
    context.options.logger.error({ err: error, runId: run.id }, 'run executor failed')
    const books = active.books?.() ?? run
    await context.runs
      .finish({
        runId: run.id,
        status: 'failed',
        output: null,
        error: { code: 'RUN_FAILED', message: (error as Error).message },
        usage: books.usage,
        usageByWallet: books.usageByWallet,
        state: run.state,
        question: null,
      })
      .catch((recordError: unknown) => {
        // Nothing could be recorded (the database is down): the queue may try the job again
        // later (BullMQ does; it then continues from the last committed step).
        if (isDatabaseFault(recordError) && !retriedByQueue) interruptWhenBack(context, run.id)
        else throw recordError
      })
  } finally {
    stopListening?.()
    context.active.delete(run.id)
    settle()
    context.notifier.notify(run.id)
    // Its streamed text is in its stored events now; readers who come later read those.
    context.notifier.forget(run.id)
  }
}
