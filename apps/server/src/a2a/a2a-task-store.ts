import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk'
import { TaskState } from '@a2a-js/sdk'
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server'
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database'
import type { Kysely } from 'kysely'
import {
  A2A_TASK_TABLE,
  a2aTaskSaves,
  a2aTaskStarts,
  type PendingTaskSave,
  type StartedTask,
  TaskAlreadyEndedError,
} from '../db/a2a-task-rows'
import type { Database } from '../db/database'
import { createGroupCommit, type GroupCommit } from '../db/group-commit'
import { ANSWERS_WHEN_SETTLED_STATE_KEY } from './handle-json-rpc'

export { A2A_TASK_TABLE } from '../db/a2a-task-rows'

/** States a blocking `SendMessage` answers with: stored before the answer goes out. */
export const settled: ReadonlySet<TaskState> = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
])

type Entry = {
  /** The latest state saved here; undefined for a task announced new and not saved yet. */
  task: Task | undefined
  context: ServerCallContext
  /** The save last handed to the writer (until its turn starts, a newer state replaces its task). */
  pending?: { save: PendingTaskSave; stored: Promise<void> }
  /** A state newer than what was handed to the writer. */
  dirty: boolean
  /** Told once the task is settled and stored (`whenSettled`). */
  waiters?: (() => void)[]
}

/** The A2A task store of the server, with what the executor tells it of tasks it starts. */
export type A2ATaskStore = TaskStore & {
  /**
   * Announces a task id the SDK has just made up for a new task: until it is saved, loading
   * it answers "none" without asking the database (no one else can know the id yet).
   */
  expectNew(taskId: string, context: ServerCallContext): void
  /**
   * Resolves once every task of this process is settled and stored (a stop waits for that
   * before the database closes), or after `timeoutMs`: `true` when none is left.
   */
  settled(timeoutMs: number): Promise<boolean>
  /**
   * Resolves once the task, executing here, is settled and stored (a blocking answer's
   * state); at once when it is not executing here.
   */
  whenSettled(taskId: string, context: ServerCallContext): Promise<void>
  /** The stored task that the message `messageId` started, in the caller's scope. */
  startedBy(messageId: string, context: ServerCallContext): Promise<StartedTask | undefined>
}

/**
 * The SDK's `DatabaseTaskStore` on the server's own Kysely instance (PGlite or PostgreSQL), so
 * tasks served over A2A outlive the process, with the round trips of a task this process is
 * executing cut down: while it runs here, the SDK's repeated loads of it are answered from
 * memory, and its saves go through the process's group commit (`db/group-commit.ts`), one
 * multi-row statement for the tasks of every request waiting for the writer's turn. What any
 * other process or a later request can observe is the database: a task's first save and every
 * save that ends a request (completed, failed, canceled, rejected, input- or auth-required)
 * have committed before they resolve; the intermediate states between them (`working`,
 * streamed artifacts) are written behind (alone, without Redis, they are kept here and go with
 * the next of those saves, or before a listing), and once a task is settled it is read from
 * the database again. A task another process has stored as ended meanwhile keeps that end: a
 * save here that would change it is refused (`TaskAlreadyEndedError`, thrown by a settling
 * save, passed over by the others) and the task is read from the database again.
 *
 * @example
 * const store = createA2ATaskStore(app.baton.db, app.baton.writer)
 * await store.load(taskId, context)
 */
export function createA2ATaskStore(
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's table is not in the server's schema.
  db: Kysely<any>,
  writer: GroupCommit = createGroupCommit(db as Kysely<Database>),
  options: A2ATaskStoreOptions = {},
): A2ATaskStore {
  return new ExecutingTaskCache(
    new DatabaseTaskStore(db, { tableName: A2A_TASK_TABLE }),
    writer,
    options.alone === true,
  )
}

export type A2ATaskStoreOptions = {
  /**
   * No other process serves these tasks (no Redis): a task whose client hears of it only once
   * it settles (a blocking `SendMessage`) is then first stored when it settles, since no one
   * can ask for it before (this process answers from memory) and nothing of it was acknowledged.
   */
  alone?: boolean
}

class ExecutingTaskCache implements A2ATaskStore {
  readonly #inner: TaskStore
  readonly #writer: GroupCommit
  readonly #alone: boolean
  // Tasks saved here and not yet settled: at most a few per request in flight.
  readonly #running = new Map<string, Entry>()

  constructor(inner: TaskStore, writer: GroupCommit, alone: boolean) {
    this.#inner = inner
    this.#writer = writer
    this.#alone = alone
  }

  // Told when the last task kept here is settled and stored.
  readonly #whenEmpty = new Set<() => void>()

  settled(timeoutMs: number): Promise<boolean> {
    if (this.#running.size === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const done = (empty: boolean) => {
        clearTimeout(timer)
        this.#whenEmpty.delete(emptied)
        resolve(empty)
      }
      const emptied = () => done(true)
      const timer = setTimeout(() => done(false), timeoutMs)
      this.#whenEmpty.add(emptied)
    })
  }

  #forget(key: string): void {
    const entry = this.#running.get(key)
    this.#running.delete(key)
    for (const waiter of entry?.waiters ?? []) waiter()
    if (this.#running.size === 0) for (const emptied of [...this.#whenEmpty]) emptied()
  }

  whenSettled(taskId: string, context: ServerCallContext): Promise<void> {
    const entry = this.#running.get(keyOf(taskId, context))
    if (!entry) return Promise.resolve()
    return new Promise((resolve) => {
      entry.waiters ??= []
      entry.waiters.push(resolve)
    })
  }

  startedBy(messageId: string, context: ServerCallContext): Promise<StartedTask | undefined> {
    return this.#writer.write(a2aTaskStarts, { scope: scopeOf(context), messageId })
  }

  expectNew(taskId: string, context: ServerCallContext): void {
    const key = keyOf(taskId, context)
    if (!this.#running.has(key)) this.#running.set(key, { task: undefined, context, dirty: false })
  }

  async save(saved: Task, context: ServerCallContext): Promise<void> {
    // A copy: the SDK keeps working on its own object, and a load must give what was saved.
    const task = copyOfTask(saved)
    const key = keyOf(task.id, context)
    const entry = this.#running.get(key)
    const state = task.status?.state
    if (state !== undefined && settled.has(state)) {
      try {
        if (entry) {
          entry.task = task
          await this.#store(entry)
        } else {
          await this.#writer.write(a2aTaskSaves, { scope: scopeOf(context), task, taken: false })
        }
      } catch (error) {
        // Ended elsewhere meanwhile (see `TaskAlreadyEndedError`): what is stored is its state.
        if (error instanceof TaskAlreadyEndedError && this.#running.get(key) === entry)
          this.#forget(key)
        throw error
      }
      // Settled: no longer ours alone to answer for (another process may take the next turn).
      if (this.#running.get(key) === entry) this.#forget(key)
      return
    }
    if (!entry?.task) {
      const fresh: Entry = entry ?? { task, context, dirty: false }
      fresh.task = task
      this.#running.set(key, fresh)
      if (this.#alone && context.state.get(ANSWERS_WHEN_SETTLED_STATE_KEY) === true) {
        // Stored with the save that settles it, before the client hears of it.
        fresh.dirty = true
        return
      }
      // The first save has committed before it resolves: another process must find the task.
      try {
        await this.#store(fresh)
      } catch (error) {
        this.#forget(key)
        throw error
      }
      return
    }
    entry.task = task
    // An intermediate state: it replaces a save still waiting for its turn. Else, alone, it
    // waits here for the next save that must be stored (at the latest the one that settles the
    // task); among many processes it is written behind, for a follower on another process.
    if (entry.pending && !entry.pending.save.taken) entry.pending.save.task = task
    else if (this.#alone) entry.dirty = true
    else void this.#store(entry).catch(() => undefined)
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.#running.get(keyOf(taskId, context))
    if (entry) return entry.task ? copyOfTask(entry.task) : undefined
    return this.#inner.load(taskId, context)
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    // A listing reads the database: whatever is kept here goes there first (a task another
    // process ended meanwhile is listed as it ended).
    await Promise.all(
      [...this.#running.values()].map((entry) =>
        (entry.dirty ? this.#store(entry) : entry.pending?.stored)?.catch(unlessEnded),
      ),
    )
    const page = await this.#inner.list(params, context)
    // The number of tasks on this page, as the Java and .NET SDKs (and the conformance
    // suite) read it, not the size asked for.
    return { ...page, pageSize: page.tasks.length }
  }

  // Hands the entry's latest state to the writer (or to its save still waiting) and resolves
  // once it has committed.
  #store(entry: Entry): Promise<void> {
    const task = entry.task
    if (!task) return Promise.resolve()
    entry.dirty = false
    const pending = entry.pending
    if (pending && !pending.save.taken) {
      pending.save.task = task
      return pending.stored
    }
    const save: PendingTaskSave = { scope: scopeOf(entry.context), task, taken: false }
    const stored = this.#writer.write(a2aTaskSaves, save).catch((error: unknown) => {
      // Not stored: the next save that must be stored writes it again (unless the task was
      // ended elsewhere: then no save of this process's will be).
      if (entry.task === task && !(error instanceof TaskAlreadyEndedError)) entry.dirty = true
      throw error
    })
    entry.pending = { save, stored }
    return stored
  }
}

/** Lets a save refused because its task was ended elsewhere pass; any other error is thrown. */
function unlessEnded(error: unknown): void {
  if (!(error instanceof TaskAlreadyEndedError)) throw error
}

/**
 * A copy of a task as deep as what the SDK changes in place on a task it loaded or saved: it
 * replaces the task's fields (status, history, metadata), pushes to and replaces entries of its
 * `artifacts`, and sets an artifact's fields (its parts, name, description, metadata). Messages
 * and parts it only ever replaces, cloning what it puts in, so they are shared; the status, the
 * history's array and the metadata are copied too, for a few nanoseconds. A `structuredClone`
 * of the whole task cost ~8 µs, and the SDK loads and saves a task for each event of a message.
 */
function copyOfTask(task: Task): Task {
  const copy: Task = { ...task }
  if (task.status) copy.status = { ...task.status }
  if (task.history) copy.history = [...task.history]
  if (task.artifacts) copy.artifacts = task.artifacts.map((artifact) => ({ ...artifact }))
  if (task.metadata) copy.metadata = { ...task.metadata }
  return copy
}

/** Tasks are scoped by tenant and caller, as the database store scopes them. */
function keyOf(taskId: string, context: ServerCallContext): string {
  return `${context.tenant ?? ''}\n${context.user?.userName ?? ''}\n${taskId}`
}

/** The SDK's scope of a caller (its default owner resolver: the user's name, else `unknown`). */
function scopeOf(context: ServerCallContext) {
  return { tenant: context.tenant ?? '', owner: context.user?.userName || 'unknown' }
}
