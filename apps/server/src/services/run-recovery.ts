import type { NeverStartedFilter } from '../db/run-recovery-repository'
import { firstJobKey } from '../queue'
import type { RunContext } from './run-context'

/** See `RunService.recoverInterrupted`. */
export async function recoverInterrupted(
  context: RunContext,
): Promise<{ interrupted: string[]; queued: string[] }> {
  const interrupted = await context.runs.interruptUnfinished()
  // A run killed mid-step spent in that step: its usage is its ledger's, resumed or not.
  for (const id of interrupted) {
    await context.runs.recountInterrupted(
      id,
      await context.options.repositories.ledger.booksOfRun(id),
    )
  }
  const queued = await queueNeverStarted(context)
  return { interrupted, queued }
}

/**
 * See `RunService.queueNeverStarted`: each run stored and never started (those stored before
 * `storedBefore`, or the one `id`, at most `limit`) gets its first job again, under the key its
 * first job had, so the queue adds nothing for a run whose job is waiting or running.
 */
export async function queueNeverStarted(
  context: RunContext,
  filter: NeverStartedFilter = {},
): Promise<string[]> {
  const runs = await context.runs.neverStarted(filter)
  for (const run of runs) {
    await context.options.queue.add(
      { kind: run.kind === 'swarm' ? 'swarm' : 'start', runId: run.id },
      { key: firstJobKey(run.id) },
    )
  }
  return runs.map((run) => run.id)
}

/**
 * A run whose database write failed (the database away, its disk full) is left `interrupted`
 * once the database takes the write, with its ledger as its usage: it is resumable from its
 * last checkpoint, and its event streams end. Retried with a growing pause until then (or
 * until shutdown: a run still `running` then is interrupted at the next start).
 */
export function interruptWhenBack(context: RunContext, runId: string): void {
  if (context.recovering.has(runId)) return
  context.recovering.add(runId)
  let pauseMs = 250
  const attempt = async () => {
    try {
      const books = await context.options.repositories.ledger.booksOfRun(runId)
      if (await context.runs.interrupt(runId, books)) {
        context.options.logger.warn({ runId }, 'run interrupted by a database fault; resumable')
      }
      context.recovering.delete(runId)
      context.notifier.notify(runId)
    } catch {
      if (context.draining) {
        context.recovering.delete(runId)
        return
      }
      pauseMs = Math.min(pauseMs * 2, 5_000)
      setTimeout(() => void attempt(), pauseMs).unref()
    }
  }
  void attempt()
}
