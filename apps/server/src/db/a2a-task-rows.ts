import { Task, taskStateToJSON } from '@a2a-js/sdk'
import type { Kysely } from 'kysely'
import type { WriteChannel, WriteExecutor } from './group-commit'

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
}

const replaced = [
  'context_id',
  'status_last_updated',
  'status_state',
  'status',
  'artifacts',
  'history',
  'metadata',
  'protocol_version',
] as const

/**
 * Saves A2A tasks, many in one `insert … on conflict do update`, in the row format of the
 * SDK's `DatabaseTaskStore` (which reads them back): the same columns, the same JSON payloads.
 *
 * @example
 * await writer.write(a2aTaskSaves, { scope: { tenant, owner }, task, taken: false })
 */
export const a2aTaskSaves: WriteChannel<PendingTaskSave> = {
  name: 'a2a task saves',
  async store(executor, saves) {
    await upsertTasks(executor, saves).execute()
  },
  statement: (db, saves) => upsertTasks(db, saves),
}

function upsertTasks(executor: WriteExecutor, saves: PendingTaskSave[]) {
  // One row per task: a statement may not update the same row twice.
  const rows = new Map<string, TaskRow>()
  for (const save of saves) {
    save.taken = true
    const row = taskRowOf(save.scope, save.task)
    rows.set(`${row.tenant}\n${row.owner}\n${row.id}`, row)
  }
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's table is not in the server's schema.
  return (executor as unknown as Kysely<any>)
    .insertInto(A2A_TASK_TABLE)
    .values([...rows.values()])
    .onConflict((conflict) =>
      conflict
        .columns(['tenant', 'owner', 'id'])
        .doUpdateSet((update) =>
          Object.fromEntries(replaced.map((column) => [column, update.ref(`excluded.${column}`)])),
        ),
    )
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
  }
}

function encode(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value)
}
