import { finalStatuses, type StoredRun } from '../db/runs-repository'
import { addBooks } from './add-books'
import { type Active, findRun, type RunContext } from './run-context'
import { uncountedSpend } from './uncounted-spend'

/**
 * See `RunService.cancel`: aborts the run executing here, or records a run executing nowhere
 * as cancelled.
 */
export async function cancelRun(context: RunContext, id: string): Promise<StoredRun> {
  const run = await findRun(context, id)
  if (finalStatuses.includes(run.status)) return run
  const active = context.active.get(id)
  if (active) {
    active.controller.abort(new Error('the run was cancelled'))
    await active.done
  } else {
    await context.runs.finish({
      runId: id,
      status: 'cancelled',
      output: null,
      error: { code: 'CANCELLED', message: 'The run was cancelled.' },
      usage: run.usage,
      usageByWallet: run.usageByWallet,
      state: null,
      question: null,
    })
    context.notifier.notify(id)
  }
  return findRun(context, id)
}

/**
 * A run cancelled by another process while this one executed it: what this attempt spent
 * until it learned of the cancel is on the ledger; the run's usage is made to count it too
 * (a run taken over by a live process is that process's to count).
 */
export async function countSpendOfCancelled(
  context: RunContext,
  runId: string,
  active: Active,
): Promise<void> {
  await active.flushSpend?.()
  const now = await context.runs.find(runId)
  if (now?.status !== 'cancelled') return
  const counted = { usage: now.usage, usageByWallet: now.usageByWallet }
  const extra = uncountedSpend(await context.options.repositories.ledger.booksOfRun(runId), counted)
  if (Object.keys(extra.usageByWallet).length === 0) return
  await context.runs.recountCancelled(runId, addBooks(counted, extra))
}
