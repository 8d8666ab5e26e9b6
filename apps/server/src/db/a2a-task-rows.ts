import { Task, taskStateToJSON } from '@a2a-js/sdk'
import { BatonError } from '@baton/core'
import { sql } from 'kysely'
import type { Refusals, WriteChannel } from './group-commit'
import { jsonRows, jsonTable } from './json-rows'

/** The table migration `0002-a2a-tasks` made for the SDK's task store. */
export const A2A_TASK_TABLE = 'a2a_tasks'

/** Whose task it is, as the SDK's `DatabaseTaskStore` scopes it (tenant, owner). */
export type A2ATaskScope = { tenant: string; owner: string }

/**
 * A task to store through the group commit. The store reads `task` when its turn starts and
 * marks it `taken`: until then a newer state of the same task may replace it, and is stored
 * instead (one row for the two saves).
 */
export type PendingTaskSave = { scope: A2ATaskScope; task: Task; taken: boolean }

type TaskRow = {
  tenant: string
  owner: string
  id: string
  context_id: string
  status_last_updated: number
  status_state: string | null
  status: string | null
  artifacts: string | null
  history: string | null
  metadata: string | null
  protocol_version: string
  /** The `messageId` of the message that started the task (its history's first). */
  started_by: string | null
}

// The SDK's table: its columns and their types, as `jsonRows` reads a row by them.
const TASKS = jsonTable<TaskRow>(A2A_TASK_TABLE, {
  tenant: 'text',
  owner: 'text',
  id: 'text',
  context_id: 'text',
  status_last_updated: 'bigint',
  status_state: 'text',
  status: 'text',
  artifacts: 'text',
  history: 'text',
  metadata: 'text',
  protocol_version: 'text',
  started_by: 'text',
})

// What a save replaces of a stored task: every column but its key and what started it.
const replaced = TASKS.names.filter(
  (column) => !['tenant', 'owner', 'id', 'started_by'].includes(column),
)

// What a save in the same state does not change of a task stored as ended.
const keptOnceEnded = new Set<string>(['status', 'status_last_updated'])

/** The states a task never leaves (A2A): once one is stored, no save changes it. */
export const ENDED_STATES = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
] as const

/**
 * A save that would have changed a task stored as ended (completed, failed, canceled,
 * rejected) to another state: nothing of it was written, and the stored end stands. Its
 * executor was cut off from the others long enough for them to end the task (a stalled or
 * partitioned process they failed it for), or the task was cancelled on a process whose cancel
 * did not reach it.
 *
 * @example
 * throw new TaskAlreadyEndedError({ taskId, state: 'TASK_STATE_COMPLETED' })
 */
export class TaskAlreadyEndedError extends BatonError {
  override name = 'TaskAlreadyEndedError'
  /** The task whose stored end stands. */
  readonly taskId: string
  constructor(options: { taskId: string; state: string | null }) {
    super(
      'TASK_ALREADY_ENDED',
      `Task "${options.taskId}" had already ended before this process could store it as ${options.state ?? 'stateless'}: its stored end stands (GetTask shows it).`,
      { details: { ...options } },
    )
    this.taskId = options.taskId
  }
}

/**
 * Saves A2A tasks, many in one `insert … on conflict do update`, in the row format of the
 * SDK's `DatabaseTaskStore` (which reads them back): the same columns, the same JSON payloads.
 * A task stored as ended keeps its state: a save that would change it is refused with
 * `TaskAlreadyEndedError` (one of the same state, a later artifact of a completed task, is
 * stored).
 *
 * @example
 * await writer.write(a2aTaskSaves, { scope: { tenant, owner }, task, taken: false })
 */
export const a2aTaskSaves: WriteChannel<PendingTaskSave> = {
  name: 'a2a task saves',
  async store(executor, saves) {
    return refusalsOf((await upsertTasks(saves).execute(executor)).rows, saves)
  },
  statement: (_db, saves) => upsertTasks(saves),
  refusals: refusalsOf,
}

const keyOf = (row: { tenant: string; owner: string; id: string }) =>
  `${row.tenant}\n${row.owner}\n${row.id}`

/** The saves whose task the statement did not write: it was stored as ended in another state. */
function refusalsOf(rows: unknown[], saves: PendingTaskSave[]): Refusals {
  const written = new Set((rows as { tenant: string; owner: string; id: string }[]).map(keyOf))
  return saves.map(({ scope, task }) =>
    written.has(keyOf({ ...scope, id: task.id }))
      ? undefined
      : new TaskAlreadyEndedError({
          taskId: task.id,
          state: task.status ? taskStateToJSON(task.status.state) : null,
        }),
  )
}

// The upsert but its rows, written once: the same text every turn (built and compiled once,
// where a query builder made and compiled it again for every turn).
const ENDED_LIST = ENDED_STATES.map((state) => `'${state}'`).join(', ')
const WHEN_ENDED = `${A2A_TASK_TABLE}.status_state in (${ENDED_LIST})`
const UPSERT = sql.raw(
  [
    'on conflict (tenant, owner, id) do update set',
    replaced
      .map((column) =>
        // A task stored as ended keeps its status (why it ended, and when): a later save in
        // the same state brings its last artifacts only. The SDK saves one over a refused end
        // ("Event processing loop failed: …"), and another process's failure of the task
        // would replace the first one's reason.
        keptOnceEnded.has(column)
          ? `${column} = case when ${WHEN_ENDED} then ${A2A_TASK_TABLE}.${column} else excluded.${column} end`
          : `${column} = excluded.${column}`,
      )
      .join(', '),
    // An ended task keeps its end.
    `where ${A2A_TASK_TABLE}.status_state is null or not ${WHEN_ENDED}`,
    `or ${A2A_TASK_TABLE}.status_state = excluded.status_state`,
    'returning tenant, owner, id',
  ].join('\n'),
)

function upsertTasks(saves: PendingTaskSave[]) {
  // One row per task: a statement may not update the same row twice.
  const rows = new Map<string, TaskRow>()
  for (const save of saves) {
    save.taken = true
    const row = taskRowOf(save.scope, save.task)
    rows.set(keyOf(row), row)
  }
  // `with … select …`: the group commit can put it in one statement with other answering writes.
  return sql<{ tenant: string; owner: string; id: string }>`with saved_a2a_tasks as (
      ${TASKS.insert([...rows.values()], UPSERT)}
    )
    select tenant, owner, id from saved_a2a_tasks`
}

/** The SDK's row of a task (`toTaskRow` of `@a2a-js/sdk/server/database`, payload format 1.0). */
function taskRowOf(scope: A2ATaskScope, task: Task): TaskRow {
  if (!task.id) throw new Error('task has no id')
  const payload = Task.toJSON(task) as Record<string, unknown>
  const parsed = task.status?.timestamp ? Date.parse(task.status.timestamp) : 0
  return {
    tenant: scope.tenant,
    owner: scope.owner,
    id: task.id,
    context_id: task.contextId || '',
    status_last_updated: Number.isNaN(parsed) ? 0 : parsed,
    status_state: task.status ? taskStateToJSON(task.status.state) : null,
    status: encode(payload.status),
    artifacts: encode(payload.artifacts),
    history: encode(payload.history),
    metadata: encode(payload.metadata),
    protocol_version: '1.0',
    started_by: task.history?.[0]?.messageId || null,
  }
}

function encode(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value)
}

/** A stored task some message started: its id, and that message's parts as stored (JSON). */
export type StartedTask = { id: string; parts: unknown }

/** A look for the task the message `messageId` started in `scope`. */
export type TaskStartLookup = { scope: A2ATaskScope; messageId: string }

/**
 * Finds the task each message started (`started_by`), if one is stored: the newest, should a
 * client have used one id for two messages before ids were kept. A read that goes with the
 * group commit's turn: the looks of every request waiting for it are one `select`, sent in
 * the same statement as the turn's writes (no query of its own per message).
 *
 * @example
 * const started = await writer.write(a2aTaskStarts, { scope: { tenant, owner }, messageId })
 */
export const a2aTaskStarts: WriteChannel<TaskStartLookup, StartedTask | undefined> = {
  name: 'a2a task starts',
  async store(executor, lookups) {
    return startsOf((await findStarts(lookups).execute(executor)).rows, lookups)
  },
  statement: (_db, lookups) => findStarts(lookups),
  answers: startsOf,
}

const LOOKS = 'i integer, tenant text, owner text, message_id text'

function findStarts(lookups: TaskStartLookup[]) {
  const looks = lookups.map(({ scope, messageId }, i) => ({
    i,
    tenant: scope.tenant,
    owner: scope.owner,
    message_id: messageId,
  }))
  // `with … select …`: the group commit puts it in one statement with the turn's writes.
  return sql<StartRow>`with started_a2a_tasks as (
      select distinct on (look.i) look.i, task.id, task.history
      from ${jsonRows(looks, 'look', LOOKS)}
      join ${sql.raw(A2A_TASK_TABLE)} as task on task.tenant = look.tenant
        and task.owner = look.owner and task.started_by = look.message_id
      order by look.i, task.status_last_updated desc
    )
    select i, id, history from started_a2a_tasks`
}

type StartRow = { i: number; id: string; history: string | null }

function startsOf(rows: unknown[], lookups: TaskStartLookup[]): (StartedTask | undefined)[] {
  const found: (StartedTask | undefined)[] = lookups.map(() => undefined)
  for (const row of rows as StartRow[]) {
    const history = row.history ? (JSON.parse(row.history) as { parts?: unknown }[]) : []
    found[row.i] = { id: row.id, parts: history[0]?.parts }
  }
  return found
}
