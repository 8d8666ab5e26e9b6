import { TaskState, TaskStatus, taskStateToJSON } from '@a2a-js/sdk'
import type { Kysely } from 'kysely'
import { A2A_TASK_TABLE } from '../db/a2a-task-rows'
import { agentMessage } from './agent-message'

/** The states of a task some process is executing (an input- or auth-required task waits on its client). */
export const IN_PROGRESS_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const

/** Why a task left in progress by a process that is gone was failed. */
export const EXECUTOR_GONE_REASON =
  'The server executing this task stopped before the agent answered.'

type TaskRows = Record<
  string,
  {
    tenant: string
    owner: string
    id: string
    context_id: string
    status_state: string | null
    status: string | null
    status_last_updated: number | string
  }
>

// biome-ignore lint/suspicious/noExplicitAny: the SDK's table is not in the server's schema.
type AnyDatabase = Kysely<any>

/** A stored task in progress: what is needed to fail it. */
export type TaskInProgress = { tenant: string; owner: string; id: string; contextId: string }

/**
 * Tasks stored in progress, last updated before `updatedBefore` (epoch ms), oldest first; at
 * most `limit`. The partial index of migration 0019 holds these rows only.
 */
export async function tasksInProgress(
  db: AnyDatabase,
  options: { updatedBefore: number; limit: number },
): Promise<TaskInProgress[]> {
  const rows = await (db as Kysely<TaskRows>)
    .selectFrom(A2A_TASK_TABLE)
    .select(['tenant', 'owner', 'id', 'context_id'])
    .where('status_state', 'in', [...IN_PROGRESS_STATES])
    .where('status_last_updated', '<', options.updatedBefore)
    .orderBy('status_last_updated')
    .limit(options.limit)
    .execute()
  return rows.map((row) => ({
    tenant: row.tenant,
    owner: row.owner,
    id: row.id,
    contextId: row.context_id,
  }))
}

/**
 * Stores each task as failed, its status message saying `reason`, unless it has left progress
 * meanwhile (its executor ended it after all: that end stands). Returns the ids it failed.
 */
export async function failTasks(
  db: AnyDatabase,
  tasks: readonly TaskInProgress[],
  reason: string,
): Promise<string[]> {
  const failed: string[] = []
  for (const task of tasks) {
    const timestamp = new Date()
    const status = TaskStatus.toJSON({
      state: TaskState.TASK_STATE_FAILED,
      message: agentMessage({ taskId: task.id, contextId: task.contextId }, reason),
      timestamp: timestamp.toISOString(),
    })
    const result = await (db as Kysely<TaskRows>)
      .updateTable(A2A_TASK_TABLE)
      .set({
        status_state: taskStateToJSON(TaskState.TASK_STATE_FAILED),
        status: JSON.stringify(status),
        status_last_updated: timestamp.getTime(),
      })
      .where('tenant', '=', task.tenant)
      .where('owner', '=', task.owner)
      .where('id', '=', task.id)
      .where('status_state', 'in', [...IN_PROGRESS_STATES])
      .executeTakeFirst()
    if (result.numUpdatedRows > 0n) failed.push(task.id)
  }
  return failed
}

/**
 * A server alone on its database (no Redis) is the only process that executes its tasks: at
 * its start, a task stored in progress was left by its own last run, killed or cut off before
 * the task ended, and no one will ever end it. Each such task is stored as failed, with the
 * reason, so its client stops waiting (as runs left running are interrupted at the next start).
 *
 * @example
 * const failed = await failTasksOfLastRun(db)
 */
export async function failTasksOfLastRun(db: AnyDatabase): Promise<string[]> {
  const failed: string[] = []
  for (;;) {
    const batch = await tasksInProgress(db, { updatedBefore: Number.MAX_SAFE_INTEGER, limit: 500 })
    if (batch.length === 0) return failed
    const now = await failTasks(db, batch, EXECUTOR_GONE_REASON)
    failed.push(...now)
    // Nothing else writes these rows now; a batch none of which could be failed would loop.
    if (now.length === 0) return failed
  }
}

export type TasksOfGoneProcessesOptions = {
  db: AnyDatabase
  /**
   * How long an executing process's mark outlives it (the task buses' lease): a task stored in
   * progress and not updated for this long is looked at, every `leaseMs`.
   */
  leaseMs: number
  /** The ids, of those given, that a live process marks as executed by it. */
  executedSomewhere(taskIds: string[]): Promise<Set<string>>
  /** Told of the tasks failed by a look (for the log). */
  onFailed?: (taskIds: string[]) => void
  onError?: (error: unknown) => void
  /** At most this many tasks a look (default 200). */
  limit?: number
}

/**
 * Among many processes (with Redis), the process executing a task marks it alive (the task
 * buses' lease); a process killed leaves its tasks in progress with no mark. Every process
 * looks, once a lease, at the tasks stored in progress and not updated for a lease, and fails
 * each one no live process has marked at two looks in a row (a task ending as it is looked at
 * is not taken for one whose process died; and its own end, stored after, stands).
 *
 * @example
 * const watching = watchTasksOfGoneProcesses({ db, leaseMs: 15_000, executedSomewhere: (ids) => buses.executedSomewhere(ids) })
 * app.addHook('onClose', () => watching.stop())
 */
export function watchTasksOfGoneProcesses(options: TasksOfGoneProcessesOptions): {
  /** One look now (what the timer does every lease). */
  look(): Promise<string[]>
  stop(): Promise<void>
} {
  let suspects = new Set<string>()
  let stopped = false
  let looking: Promise<string[]> | undefined
  const look = async (): Promise<string[]> => {
    const tasks = await tasksInProgress(options.db, {
      updatedBefore: Date.now() - options.leaseMs,
      limit: options.limit ?? 200,
    })
    if (tasks.length === 0) {
      suspects = new Set()
      return []
    }
    const marked = await options.executedSomewhere(tasks.map((task) => task.id))
    const unmarked = tasks.filter((task) => !marked.has(task.id))
    const gone = unmarked.filter((task) => suspects.has(task.id))
    suspects = new Set(unmarked.map((task) => task.id))
    if (gone.length === 0 || stopped) return []
    const failed = await failTasks(options.db, gone, EXECUTOR_GONE_REASON)
    for (const id of failed) suspects.delete(id)
    if (failed.length > 0) options.onFailed?.(failed)
    return failed
  }
  const once = () => {
    looking ??= look().finally(() => {
      looking = undefined
    })
    return looking
  }
  const timer = setInterval(() => {
    if (!looking) once().catch((error: unknown) => options.onError?.(error))
  }, options.leaseMs)
  timer.unref()
  return {
    look: once,
    async stop() {
      stopped = true
      clearInterval(timer)
      await looking?.catch(() => {})
    },
  }
}
