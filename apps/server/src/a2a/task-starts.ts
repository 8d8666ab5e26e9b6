import { createHash } from 'node:crypto'
import { Message } from '@a2a-js/sdk'
import { RequestMalformedError } from '@a2a-js/sdk/errors'
import type { ServerCallContext } from '@a2a-js/sdk/server'
import type { A2ATaskStore } from './a2a-task-store'
import type { SharedStartClaims } from './redis-start-claims'

/** Where a request that starts a task leaves its claim, for the executor to name the task. */
export const TASK_START_STATE_KEY = 'baton.task-start'

/** Messages remembered per process; older ones are found in the database. */
const DEFAULT_LIMIT = 10_000
/** How often a copy whose start another process claimed looks for the task it stored. */
const SHARED_POLL_MS = 25

/** One message that starts a task: its parts (hashed), and the task's id once it is known. */
type Start = {
  parts: string
  /** The task's id once known; undefined when its request ended without starting one. */
  taskId: Promise<string | undefined>
  /** Known (or given up on). */
  known: boolean
  /** The deployment's claim is this process's (freed when its request starts no task). */
  shared: boolean
  /**
   * Its request is over, so its task is stored (a blocking one's when it settled), or it was
   * found stored: the entry may be dropped when the book is full, a retry finds the task in
   * the database. One still running (a process alone stores a blocking message's task only
   * when it settles) is kept.
   */
  over: boolean
  tell(taskId: string | undefined): void
}

/** What `claim` answers: the task the message started already, or this request's claim to start it. */
export type TaskStart = { started: string } | { claim: TaskClaim }

/** A request's claim to start the task of its message. */
export type TaskClaim = { key: string; start: Start }

/**
 * Which task each message started, by its `messageId` in the caller's scope (tenant and
 * owner), so a message sent again (a client's retry after a timeout, or a duplicate sent at
 * once) is answered with the task the first started, and the agent runs once (A2A 1.0 §3.3.1:
 * "Send Message operations MAY be idempotent. Agents may utilize the messageId to detect
 * duplicate messages"). A message being started here is known at once; the others through
 * the stored task (`started_by`), on any process and after a restart. With `shared` claims
 * (the deployment's Redis), two copies that reach two processes before either has stored its
 * task start it once: the process that takes the claim starts it, the other waits for the
 * task it stores. The same `messageId` with other parts is refused (-32602), as a reused
 * `Idempotency-Key` is.
 *
 * @example
 * const start = await starts.claim(params.message, context)
 * if ('started' in start) return this.getTask({ id: start.started }, context)
 */
export class TaskStarts {
  readonly #store: A2ATaskStore
  readonly #limit: number
  readonly #starts = new Map<string, Start>()
  #shared: { claims: SharedStartClaims; onError: (error: unknown) => void } | undefined
  /** The deployment's claims failed last time (told once, until one is answered again). */
  #sharedFailing = false

  constructor(store: A2ATaskStore, limit = DEFAULT_LIMIT) {
    this.#store = store
    this.#limit = limit
  }

  /**
   * Shares the claims with the other processes of the deployment. A claim the deployment
   * cannot answer (Redis down, or slow past its bound) is told to `onError` (the first of an
   * outage only), and the message is started as a process alone would: the look in the
   * database still finds a task stored.
   */
  share(claims: SharedStartClaims, onError: (error: unknown) => void = () => {}): void {
    this.#shared = { claims, onError }
  }

  async claim(message: Message, context: ServerCallContext): Promise<TaskStart> {
    const key = `${context.tenant ?? ''}\n${context.user?.userName ?? ''}\n${message.messageId}`
    const parts = partsOf(message)
    for (;;) {
      const known = this.#starts.get(key)
      if (known) {
        if (known.parts !== parts) throw reused(message.messageId)
        const taskId = await known.taskId
        if (taskId !== undefined) return { started: taskId }
        // Its request ended before it started a task: this one may start it.
        continue
      }
      const start = newStart(parts)
      this.#remember(key, start)
      try {
        const stored = await this.#storedStart(message, parts, context)
        if (stored) return this.#startedBy(start, stored)
        if (!this.#shared) return { claim: { key, start } }
        return await this.#claimShared(key, start, message, context)
      } catch (error) {
        this.#giveUp(key, start)
        throw error
      }
    }
  }

  // Another process may be starting the same message at this moment, its task not stored
  // yet: whoever takes the deployment's claim starts it, the others wait for its task.
  async #claimShared(
    key: string,
    start: Start,
    message: Message,
    context: ServerCallContext,
  ): Promise<TaskStart> {
    const { claims, onError } = this.#shared!
    for (;;) {
      let held: Awaited<ReturnType<SharedStartClaims['take']>>
      try {
        held = await claims.take(key, start.parts)
        this.#sharedFailing = false
      } catch (error) {
        if (!this.#sharedFailing) onError(error)
        this.#sharedFailing = true
        return { claim: { key, start } }
      }
      if ('taken' in held) {
        start.shared = true
        return { claim: { key, start } }
      }
      if (held.heldWith !== start.parts) throw reused(message.messageId)
      // Stored within moments of its start; a claim whose process died lapses.
      await new Promise((resolve) => setTimeout(resolve, SHARED_POLL_MS))
      const stored = await this.#storedStart(message, start.parts, context)
      if (stored) return this.#startedBy(start, stored)
    }
  }

  // The task the message started, as stored (by any process, before a restart); refused
  // when it was stored with other parts.
  async #storedStart(
    message: Message,
    parts: string,
    context: ServerCallContext,
  ): Promise<string | undefined> {
    const stored = await this.#store.startedBy(message.messageId, context)
    if (stored && hashOf(JSON.stringify(stored.parts ?? [])) !== parts) {
      throw reused(message.messageId)
    }
    return stored?.id
  }

  #startedBy(start: Start, taskId: string): TaskStart {
    start.tell(taskId)
    start.over = true
    return { started: taskId }
  }

  /** The executor's word: the request holding a claim (in `context`) starts task `taskId`. */
  began(context: ServerCallContext, taskId: string): void {
    const claim = context.state.get(TASK_START_STATE_KEY) as TaskClaim | undefined
    claim?.start.tell(taskId)
  }

  /** The claimed request is over: one that started no task frees its message for a retry. */
  end(claim: TaskClaim): void {
    claim.start.over = true
    if (!claim.start.known) this.#giveUp(claim.key, claim.start)
  }

  #giveUp(key: string, start: Start): void {
    if (this.#starts.get(key) === start) this.#starts.delete(key)
    start.tell(undefined)
    if (start.shared) {
      start.shared = false
      const { claims, onError } = this.#shared!
      claims.free(key).catch(onError)
    }
  }

  // Past the limit, the oldest entries whose request is over go (a tenth at once: O(1) per
  // message amortised).
  #remember(key: string, start: Start): void {
    this.#starts.set(key, start)
    if (this.#starts.size <= this.#limit) return
    const target = this.#limit - Math.ceil(this.#limit / 10)
    for (const [oldKey, old] of this.#starts) {
      if (this.#starts.size <= target) break
      if (old.over) this.#starts.delete(oldKey)
    }
  }
}

function newStart(parts: string): Start {
  let tell!: (taskId: string | undefined) => void
  const taskId = new Promise<string | undefined>((resolve) => {
    tell = resolve
  })
  const start: Start = {
    parts,
    taskId,
    known: false,
    shared: false,
    over: false,
    tell(id) {
      if (start.known) return
      start.known = true
      tell(id)
    },
  }
  return start
}

/**
 * A message's parts as the task stores them (JSON), hashed: a stored message compares alike,
 * and the book keeps 32 bytes of each, whatever its size.
 */
function partsOf(message: Message): string {
  return hashOf(JSON.stringify((Message.toJSON(message) as { parts?: unknown }).parts ?? []))
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64')
}

function reused(messageId: string): Error {
  return new RequestMalformedError({
    message: `params.message.messageId "${messageId}" was sent before with other parts; a message sent again must be the same, and a new message needs a new messageId.`,
    metadata: { field: 'params.message.messageId' },
  })
}
