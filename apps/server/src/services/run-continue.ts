import type { RunStatus, StoredRun } from '../db/runs-repository'
import { HttpError } from '../http/http-errors'
import type { RunJob } from '../queue'
import { findRun, type RunContext } from './run-context'
import { assertOpen } from './run-drain'

/** See `RunService.answer`: a paused run's answer, queued for the run to continue with. */
export async function answerRun(
  context: RunContext,
  id: string,
  answer: unknown,
  question?: string,
): Promise<void> {
  assertOpen(context)
  const run = await findRun(context, id)
  const refusal = (now: StoredRun) => notPaused(now, question)
  const asked = run.status === 'paused' && run.state
  if (!asked || (question !== undefined && run.question !== question)) throw refusal(run)
  await continueRun(context, run, { kind: 'answer', runId: id, answer }, refusal)
}

/** See `RunService.resume`: queues an interrupted run to continue from its last finished step. */
export async function resumeRun(context: RunContext, id: string): Promise<void> {
  assertOpen(context)
  const run = await findRun(context, id)
  if (run.status !== 'interrupted') throw notInterrupted(run)
  await continueRun(
    context,
    run,
    { kind: run.kind === 'swarm' ? 'swarm' : 'resume', runId: id },
    notInterrupted,
  )
}

const notPaused = (run: StoredRun, question?: string) =>
  run.status === 'paused' && question !== undefined
    ? new HttpError(
        409,
        'RUN_NOT_RESUMABLE',
        `Run "${run.id}" asks ${JSON.stringify(run.question)} now, not ${JSON.stringify(question)}.`,
        { status: run.status, question: run.question },
      )
    : new HttpError(409, 'RUN_NOT_RESUMABLE', `Run "${run.id}" is ${run.status}, not paused.`, {
        status: run.status,
      })

const notInterrupted = (run: StoredRun) =>
  new HttpError(
    409,
    'RUN_NOT_RESUMABLE',
    `Run "${run.id}" is ${run.status}; only an interrupted run can be resumed${run.status === 'paused' ? ' (a paused run takes an answer)' : ''}.`,
    { status: run.status },
  )

/**
 * Sets `run` from the status (and execution attempt) it was read with back to `queued` and
 * queues `job`. The change is one conditional statement: of two requests that continue the run
 * at once (two answers, two resumes), one does, and the other is refused with the run as it is
 * then, so no answer is acknowledged that the run will not take, nor taken for a later pause.
 */
async function continueRun(
  context: RunContext,
  run: StoredRun,
  job: RunJob,
  refusal: (run: StoredRun) => HttpError,
): Promise<void> {
  // From the status it was read with, in the same execution: a run that went on and stopped
  // in that status again (answered by another, then paused at its next question) is refused.
  const change = { from: run.status, to: 'queued' as const, attempt: run.attempt }
  if (!(await context.runs.changeStatus(run.id, change))) {
    throw refusal((await context.runs.find(run.id)) ?? run)
  }
  await queueAgain(context, job, run.status)
}

/** Queues a run set back to `queued`; when the queue does not take it, its status is restored. */
export async function queueAgain(
  context: RunContext,
  job: RunJob,
  status: RunStatus,
): Promise<void> {
  try {
    await context.options.queue.add(job)
  } catch (error) {
    await context.runs.changeStatus(job.runId, { from: 'queued', to: status }).catch(() => {})
    throw error
  }
}
