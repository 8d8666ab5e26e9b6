import { createSupervisor } from './create-supervisor'
import type { CreateSupervisorOptions, DelegateOptions, SubagentReport } from './types'

export type RunTaskOptions = CreateSupervisorOptions & {
  /** What the one sub-agent is to do. */
  task: string
  /** How it is delegated (`workspace: 'share'` to work in the caller's directory, a budget, ...). */
  delegate?: DelegateOptions
  /** Aborting it cancels the task (and everything it started); the report says `cancelled`. */
  signal?: AbortSignal
}

/**
 * Runs one bounded task as a sub-agent and resolves with its report, for a caller that needs
 * one answer rather than a tree to manage (MAL's `task`). Nothing outlives it: a task that
 * asks a question is cancelled (it has no one to answer it), and its directory is removed
 * (never the caller's, for `share`). With a runner that has `filesOnlyThroughTools`, it takes
 * no snapshot of the disk unless the task wrote files.
 *
 * @example
 * const report = await runTask({ agent, budget, workspace: { kind: 'directory', root }, task: 'Summarize the incidents' })
 * if (report.status === 'done') console.log(report.result)
 */
export async function runTask(options: RunTaskOptions): Promise<SubagentReport> {
  const { task, delegate, signal, ...supervisorOptions } = options
  const supervisor = createSupervisor(supervisorOptions)
  const id = supervisor.delegate(task, delegate)
  const onAbort = () => void supervisor.cancelAll()
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  try {
    let report = (await supervisor.waitAgents([id]))?.[id]
    if (!report || report.status === 'asking' || report.status === 'running') {
      report = await supervisor.cancelAgent(id)
    }
    return report
  } finally {
    signal?.removeEventListener('abort', onAbort)
    await supervisor.cleanup()
  }
}
