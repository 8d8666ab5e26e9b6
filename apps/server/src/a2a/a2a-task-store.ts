import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from '@a2a-js/sdk'
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server'
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database'
import type { Kysely } from 'kysely'

/** The table migration `0002-a2a-tasks` made for the SDK's task store. */
export const A2A_TASK_TABLE = 'a2a_tasks'

/** States a blocking `SendMessage` answers with: stored before the answer goes out. */
const settled = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
])

type Entry = {
  /** The latest state this process saved. */
  task: Task
  context: ServerCallContext
  /** The write in progress (it writes `task` as it is when it starts, then again if changed). */
  writing?: Promise<void>
  dirty: boolean
}

/**
 * The SDK's `DatabaseTaskStore` on the server's own Kysely instance (PGlite or PostgreSQL), so
 * tasks served over A2A outlive the process, with the round trips of a task this process is
 * executing cut down: while it runs here, the SDK's repeated loads of it are answered from
 * memory, and its intermediate updates (`working`, streamed artifacts) are written behind,
 * coalesced. What any other process or a later request can observe is the database:
 * a task's first save and every save that ends a request (completed, failed, canceled,
 * rejected, input- or auth-required) are written before they resolve, and once a task is
 * settled it is read from the database again.
 *
 * @example
 * const store = createA2ATaskStore(app.baton.db)
 * await store.load(taskId, context)
 */
export function createA2ATaskStore(db: Kysely<unknown>): TaskStore {
  return new ExecutingTaskCache(new DatabaseTaskStore(db, { tableName: A2A_TASK_TABLE }))
}

class ExecutingTaskCache implements TaskStore {
  readonly #inner: TaskStore
  // Tasks saved here and not yet settled: at most a few per request in flight.
  readonly #running = new Map<string, Entry>()

  constructor(inner: TaskStore) {
    this.#inner = inner
  }

  async save(saved: Task, context: ServerCallContext): Promise<void> {
    // A copy: the SDK keeps working on its own object, and a load must give what was saved.
    const task = structuredClone(saved)
    const key = keyOf(task.id, context)
    const entry = this.#running.get(key)
    const state = task.status?.state
    if (state !== undefined && settled.has(state)) {
      if (entry) {
        entry.task = task
        entry.dirty = true
        await this.#drain(key, entry)
      } else {
        await this.#inner.save(task, context)
      }
      // Settled: no longer ours alone to answer for (another process may take the next turn).
      if (this.#running.get(key) === entry) this.#running.delete(key)
      return
    }
    if (!entry) {
      // The first save is written before it resolves: another process must find the task.
      const fresh: Entry = { task, context, dirty: false }
      this.#running.set(key, fresh)
      try {
        await this.#inner.save(task, context)
      } catch (error) {
        this.#running.delete(key)
        throw error
      }
      return
    }
    entry.task = task
    entry.dirty = true
    // A write behind that fails leaves the entry dirty: the next save (at the latest the one
    // that settles the task, which is awaited and throws) writes it again.
    if (!entry.writing)
      void this.#drain(key, entry).catch(() => {
        entry.dirty = true
      })
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.#running.get(keyOf(taskId, context))
    if (entry) return structuredClone(entry.task)
    return this.#inner.load(taskId, context)
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    // A listing reads the database: whatever is written behind goes there first.
    await Promise.all([...this.#running].map(([key, entry]) => this.#drain(key, entry)))
    const page = await this.#inner.list(params, context)
    // The number of tasks on this page, as the Java and .NET SDKs (and the conformance
    // suite) read it, not the size asked for.
    return { ...page, pageSize: page.tasks.length }
  }

  // Writes the entry's latest task until nothing newer is waiting; one write at a time per task.
  #drain(key: string, entry: Entry): Promise<void> {
    if (entry.writing) {
      return entry.writing.then(() => (entry.dirty ? this.#drain(key, entry) : undefined))
    }
    if (!entry.dirty) return Promise.resolve()
    entry.dirty = false
    const task = entry.task
    entry.writing = this.#inner.save(task, entry.context).finally(() => {
      entry.writing = undefined
    })
    return entry.writing.then(() => (entry.dirty ? this.#drain(key, entry) : undefined))
  }
}

/** Tasks are scoped by tenant and caller, as the database store scopes them. */
function keyOf(taskId: string, context: ServerCallContext): string {
  return `${context.tenant ?? ''}\n${context.user?.userName ?? ''}\n${taskId}`
}
