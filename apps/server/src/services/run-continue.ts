import type { RunStatus } from '../db/runs-repository'
import { HttpError } from '../http/http-errors'
import type { RunJob } from '../queue'
import { findRun, type RunContext } from './run-context'
import { assertOpen } from './run-drain'

/** See `RunService.answer`: a paused run's answer, queued for the run to continue with. */
export async function answerRun(context: RunContext, id: string, answer: unknown): Promise<void> {
  assertOpen(context)
  const run = await findRun(context, id)
  if (run.status !== 'paused' || !run.state) {
    throw new HttpError(409, 'RUN_NOT_RESUMABLE', `Run "${id}" is ${run.status}, not paused.`, {
      status: run.status,
    })
  }
  await context.runs.setStatus(id, 'queued')
  await queueAgain(context, { kind: 'answer', runId: id, answer }, 'paused')
}

/** See `RunService.resume`: queues an interrupted run to continue from its last finished step. */
export async function resumeRun(context: RunContext, id: string): Promise<void> {
  assertOpen(context)
  const run = await findRun(context, id)
  if (run.status !== 'interrupted') {
    throw new HttpError(
      409,
      'RUN_NOT_RESUMABLE',
      `Run "${id}" is ${run.status}; only an interrupted run can be resumed${run.status === 'paused' ? ' (a paused run takes an answer)' : ''}.`,
      { status: run.status },
    )
  }
  await context.runs.setStatus(id, 'queued')
  await queueAgain(
    context,
    { kind: run.kind === 'swarm' ? 'swarm' : 'resume', runId: id },
    'interrupted',
  )
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
    await context.runs.setStatus(job.runId, status).catch(() => {})
    throw error
  }
}
