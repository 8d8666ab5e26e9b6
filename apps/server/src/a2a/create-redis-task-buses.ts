import { type Task, type TaskState, taskStateFromJSON } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutionEvent,
  DefaultExecutionEventBus,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type ServerCallContext,
} from '@a2a-js/sdk/server'
import type { Redis } from 'ioredis'
import { ENDED_STATES } from '../db/a2a-task-rows'
import { foldTaskEvents } from './fold-task-events'

export type RedisTaskBusesOptions = {
  /** Publishes this process's task events and keeps its ownership marks. */
  publisher: Redis
  /** A connection of its own (a subscribed connection can do nothing else). */
  subscriber: Redis
  /** Shared by every process of the deployment (default `baton`). */
  prefix?: string
  /** The stored task, read when a follower starts and when its executor is gone. */
  loadTask(taskId: string, context: ServerCallContext | undefined): Promise<Task | undefined>
  /**
   * How long a task's executing process is believed alive after its last mark (default
   * 15000). A follower whose task has no live executor ends with the stored task.
   */
  leaseMs?: number
  /** Called for anything that goes wrong on the Redis side (the local stream goes on). */
  onError?: (error: unknown) => void
}

export type RedisTaskBuses = ExecutionEventBusManager & {
  /**
   * What to do on this process when another asks to cancel a task that runs here (the
   * executor's `cancelTask` on the task's own bus). Set once, after the executor exists.
   */
  onCancelRequest(handler: (taskId: string, bus: ExecutionEventBus) => void): void
  /**
   * Asks the process executing `taskId`, wherever it is, to cancel it. The ask is kept in Redis
   * for `keepMs` (default two leases): an executor that did not hear it (its subscription was
   * down, or it was stalled) finds it at its next mark.
   */
  requestCancel(taskId: string, options?: { keepMs?: number }): void
  /** The ids, of those given, that a live process (this one or another) marks as executing. */
  executedSomewhere(taskIds: readonly string[]): Promise<Set<string>>
  close(): Promise<void>
}

type Wire =
  // `seq`: the event's place in its execution's log (1, 2, …); absent from an older process.
  | { kind: 'event'; seq?: number; event: AgentExecutionEvent }
  | { kind: 'finished' }
  | { kind: 'cancel' }

/**
 * How many leases a follower waits, once a task's executor is gone, for the task's stored end
 * (a look of every process fails such a task within three).
 */
const GIVE_UP_AFTER_LEASES = 4

const terminal = new Set<TaskState>(ENDED_STATES.map(taskStateFromJSON))

/**
 * The A2A SDK's event-bus seam (`ExecutionEventBusManager`) shared by every process through
 * Redis pub/sub, so a task can be followed (`SubscribeToTask` / v0.3 `tasks/resubscribe`) and
 * cancelled on any process, not only on the one executing it.
 *
 * The executing process's bus appends each event to the task's log in Redis and publishes it
 * to the task's channel, and keeps an ownership mark alive (`leaseMs`). Another process asked
 * about the task gets a following bus: it subscribes, then reads the log, so nothing published
 * before the subscription is missed, even what the store has not caught up with yet (the task
 * store writes a running task's intermediate states behind). The log is told as one task, the
 * events folded as the executor's own process folds them (the client was just given the stored
 * task: told one by one, they would take it back to `submitted`, and append the answer's chunks
 * a second time). It then delivers the live events after the log, each once and in order, and
 * ends when the executor says `finished` — or, when the mark lapses without it (the executor
 * died), with the stored task once it has ended (some process fails it:
 * `watchTasksOfGoneProcesses`), or after a few leases without that. With no log (the
 * task no longer runs, or runs on an older process) it starts from the stored task. A cancel on
 * a following bus reaches the executor, whose own `cancelTask` stops the agent: at once through
 * the channel, or, when the executor's subscription missed it, at its next mark (the cancel is
 * kept for two leases).
 *
 * @example
 * const buses = createRedisTaskBuses({ publisher, subscriber, loadTask: (id, context) => store.load(id, context) })
 * const handler = new DefaultRequestHandler(card, store, executor, buses)
 */
export function createRedisTaskBuses(options: RedisTaskBusesOptions): RedisTaskBuses {
  const prefix = options.prefix ?? 'baton'
  const leaseMs = options.leaseMs ?? 15_000
  const channel = (taskId: string) => `${prefix}:a2a-task:${taskId}`
  const ownerKey = (taskId: string) => `${prefix}:a2a-task-owner:${taskId}`
  const logKey = (taskId: string) => `${prefix}:a2a-task-log:${taskId}`
  const cancelKey = (taskId: string) => `${prefix}:a2a-task-cancel:${taskId}`
  // A log outlives a missed refresh of its mark; it goes when its execution ends.
  const logMs = 2 * leaseMs
  const onError = options.onError ?? (() => {})
  // Every channel this process listens on, with who listens (a task may have many followers).
  const listeners = new Map<string, Set<(wire: Wire) => void>>()
  const executing = new Map<string, ExecutingBus>()
  let cancelHandler: ((taskId: string, bus: ExecutionEventBus) => void) | undefined

  options.subscriber.on('message', (name: string, message: string) => {
    const listening = listeners.get(name)
    if (!listening) return
    let wire: Wire
    try {
      wire = JSON.parse(message) as Wire
    } catch (error) {
      return onError(error)
    }
    for (const listener of [...listening]) listener(wire)
  })
  /** Listens on a task's channel; resolves once Redis has the subscription. */
  const listen = async (taskId: string, listener: (wire: Wire) => void): Promise<() => void> => {
    const name = channel(taskId)
    let listening = listeners.get(name)
    if (!listening) {
      listening = new Set()
      listeners.set(name, listening)
    }
    listening.add(listener)
    const off = () => {
      const current = listeners.get(name)
      if (!current?.delete(listener) || current.size > 0) return
      listeners.delete(name)
      options.subscriber.unsubscribe(name).catch(onError)
    }
    // Subscribing again is harmless and resolves when this listener is really subscribed.
    await options.subscriber.subscribe(name)
    return off
  }
  const send = (taskId: string, wire: Wire) => {
    options.publisher.publish(channel(taskId), JSON.stringify(wire)).catch(onError)
  }

  /** The bus of a task this process executes: every event goes out to the followers too. */
  class ExecutingBus extends DefaultExecutionEventBus {
    readonly #taskId: string
    readonly #mark: NodeJS.Timeout
    #unlisten: (() => void) | undefined
    #finished = false
    #released = false
    #cancelled = false
    // Events published by this execution (the log's length).
    #seq = 0
    constructor(taskId: string) {
      super()
      this.#taskId = taskId
      // A log left by an execution of this task that died is not this one's.
      options.publisher.del(logKey(taskId)).catch(onError)
      const mark = () => {
        options.publisher.set(ownerKey(taskId), '1', 'PX', leaseMs).then(() => {}, onError)
        if (this.#seq > 0) options.publisher.pexpire(logKey(taskId), logMs).catch(onError)
      }
      mark()
      this.#mark = setInterval(
        () => {
          mark()
          // A cancel whose word did not arrive (the subscription was down) is found here.
          void this.#cancelIfAsked()
        },
        Math.max(100, Math.floor(leaseMs / 3)),
      )
      this.#mark.unref()
      // Another process's cancel arrives here; the executor cancels its own run.
      listen(taskId, (wire) => {
        if (wire.kind === 'cancel') this.#cancel()
      }).then((off) => {
        if (this.#released) return off()
        this.#unlisten = off
        // Asked before this subscription was made.
        void this.#cancelIfAsked()
      }, onError)
    }
    #cancel(): void {
      if (this.#finished || this.#released || this.#cancelled) return
      this.#cancelled = true
      cancelHandler?.(this.#taskId, this)
    }
    async #cancelIfAsked(): Promise<void> {
      if (this.#finished || this.#released || this.#cancelled) return
      const asked = await options.publisher.exists(cancelKey(this.#taskId)).catch((error) => {
        onError(error)
        return 0
      })
      if (asked === 1) this.#cancel()
    }
    override publish(event: AgentExecutionEvent): void {
      super.publish(event)
      // Released (its log gone): followers still listening hear it, a new one starts stored.
      if (this.#released) {
        send(this.#taskId, { kind: 'event', event })
        return
      }
      const seq = ++this.#seq
      const wire: Wire = { kind: 'event', seq, event }
      const message = JSON.stringify(wire)
      const key = logKey(this.#taskId)
      // In the log before on the channel (one connection keeps the order): a follower that
      // subscribes after the publish reads it from the log.
      options.publisher.rpush(key, message).catch(onError)
      if (seq === 1) options.publisher.pexpire(key, logMs).catch(onError)
      options.publisher.publish(channel(this.#taskId), message).catch(onError)
    }
    override finished(): void {
      super.finished()
      if (!this.#finished) {
        this.#finished = true
        // The log goes before the word: a follower that missed `finished` finds no log, and
        // starts from the stored task.
        options.publisher.del(logKey(this.#taskId)).catch(onError)
        send(this.#taskId, { kind: 'finished' })
      }
      this.release()
    }
    /** Stops marking the task as executed here (a follower then ends with the stored task). */
    release(): void {
      if (this.#released) return
      this.#released = true
      clearInterval(this.#mark)
      this.#unlisten?.()
      const taskId = this.#taskId
      options.publisher.del(logKey(taskId), ownerKey(taskId), cancelKey(taskId)).catch(onError)
    }
  }

  /** The bus of a task another process executes, fed from Redis. */
  class FollowingBus extends DefaultExecutionEventBus {
    readonly #taskId: string
    readonly #context: ServerCallContext | undefined
    #watch: NodeJS.Timeout | undefined
    #unlisten: (() => void) | undefined
    #done = false
    // When this follower first found no live executor (undefined while there is one).
    #goneSince: number | undefined
    #checking = false
    // The last event of the execution's log delivered (events come from the log and live).
    #delivered = 0
    constructor(taskId: string, context: ServerCallContext | undefined) {
      super()
      this.#taskId = taskId
      this.#context = context
      void this.#start()
    }
    async #start(): Promise<void> {
      try {
        // Live words wait here until what came before them is delivered.
        let early: Wire[] | undefined = []
        this.#unlisten = await listen(this.#taskId, (wire) => {
          if (early) early.push(wire)
          else this.#receive(wire)
        })
        if (this.#done) return this.#unlisten()
        // Subscribed: what was published before now is in the log (or, with no log, stored).
        const log = await options.publisher.lrange(logKey(this.#taskId), 0, -1)
        if (this.#done) return
        if (log.length > 0) {
          await this.#catchUp(log.map((message) => JSON.parse(message) as Wire))
          if (this.#done) return
        } else {
          const task = await options.loadTask(this.#taskId, this.#context)
          if (this.#done) return
          if (task && isTerminal(task)) {
            // It ended between the subscription and the look (its log went with its end): its
            // last events, heard live since then, are still told, then how it is stored.
            for (const wire of early) if (wire.kind === 'event') this.#receive(wire)
            super.publish(AgentEvent.task(task))
            return this.#end()
          }
          if (task) super.publish(AgentEvent.task(task))
          if (!task) return this.#end()
        }
        for (const wire of early) this.#receive(wire)
        early = undefined
        if (this.#done) return
        this.#watch = setInterval(() => void this.#check(), Math.max(100, Math.floor(leaseMs / 3)))
        this.#watch.unref()
        await this.#check()
      } catch (error) {
        onError(error)
        this.#end()
      }
    }
    /**
     * What the execution published before this follower subscribed, told as one task: the
     * client has just been given the stored task, which the log runs ahead of, and the log's
     * events told after it one by one would take the client back (to `submitted`, and the
     * answer's chunks appended to what it already holds). From an older process (events
     * without their place in the log) the log is told as it is.
     */
    async #catchUp(log: Wire[]): Promise<void> {
      const events = log.filter((wire) => wire.kind === 'event')
      const last = events.at(-1)?.seq
      const task =
        last !== undefined && events.every((wire) => wire.seq !== undefined)
          ? await foldTaskEvents(
              this.#taskId,
              events.map((wire) => wire.event),
              () => options.loadTask(this.#taskId, this.#context),
            )
          : undefined
      if (this.#done) return
      if (!task) {
        for (const wire of log) this.#receive(wire)
        return
      }
      this.#delivered = last!
      super.publish(AgentEvent.task(task))
    }
    #receive(wire: Wire): void {
      if (this.#done) return
      if (wire.kind === 'finished') {
        this.#end()
        return
      }
      if (wire.kind !== 'event') return
      // Read from the log and heard live: delivered once.
      if (wire.seq !== undefined) {
        if (wire.seq <= this.#delivered) return
        this.#delivered = wire.seq
      }
      super.publish(wire.event)
    }
    async #alive(): Promise<boolean> {
      return (await options.publisher.exists(ownerKey(this.#taskId))) === 1
    }
    // No live executor (killed, or done without a word that reached here): the task's end is
    // what is stored once a process fails it (see `watchTasksOfGoneProcesses`). Followed until
    // then, or for a few leases at most, and ended with what was stored.
    async #check(): Promise<void> {
      if (this.#checking) return
      this.#checking = true
      try {
        await this.#checkExecutor()
      } finally {
        this.#checking = false
      }
    }
    async #checkExecutor(): Promise<void> {
      if (this.#done || (await this.#alive().catch(() => true))) {
        this.#goneSince = undefined
        return
      }
      this.#goneSince ??= Date.now()
      // The mark was read on another connection than the channel's: what the executor published
      // before it let the mark go (its last events, its `finished`) may still be on the way to
      // the subscribed one. A round trip there comes back behind them.
      await heardAllBefore(options.subscriber, GIVE_UP_AFTER_LEASES * leaseMs)
      if (this.#done) return
      const task = await options.loadTask(this.#taskId, this.#context).catch(() => undefined)
      if (this.#done) return
      const givenUp = Date.now() - this.#goneSince >= GIVE_UP_AFTER_LEASES * leaseMs
      if (task && !isTerminal(task) && !givenUp) return
      if (task) super.publish(AgentEvent.task(task))
      this.#end()
    }
    #end(): void {
      if (this.#done) return
      this.#done = true
      clearInterval(this.#watch)
      this.#unlisten?.()
      super.finished()
    }
    // This process's executor ends a followed task it cancelled: stop following it.
    override finished(): void {
      this.#end()
    }
  }

  return {
    createOrGetByTaskId(taskId) {
      let bus = executing.get(taskId)
      if (!bus) {
        bus = new ExecutingBus(taskId)
        executing.set(taskId, bus)
      }
      return bus
    },
    getByTaskId(taskId, context) {
      // Elsewhere (or nowhere): a follower, which ends at once when no process executes it.
      return executing.get(taskId) ?? new FollowingBus(taskId, context)
    },
    cleanupByTaskId(taskId) {
      const bus = executing.get(taskId)
      if (!bus) return
      executing.delete(taskId)
      bus.removeAllListeners()
      bus.release()
    },
    onCancelRequest(handler) {
      cancelHandler = handler
    },
    requestCancel(taskId, keep) {
      if (executing.has(taskId)) return
      // Kept too: an executor that misses the word (its subscription down, or not made yet)
      // finds it within a third of a lease.
      options.publisher.set(cancelKey(taskId), '1', 'PX', keep?.keepMs ?? logMs).catch(onError)
      send(taskId, { kind: 'cancel' })
    },
    async executedSomewhere(taskIds) {
      if (taskIds.length === 0) return new Set()
      const marks = await options.publisher.mget(...taskIds.map(ownerKey))
      return new Set(taskIds.filter((_taskId, index) => marks[index] !== null))
    },
    async close() {
      for (const bus of executing.values()) bus.release()
      executing.clear()
      const channels = [...listeners.keys()]
      listeners.clear()
      if (channels.length > 0) await options.subscriber.unsubscribe(...channels).catch(onError)
    },
  }
}

/**
 * Resolves once `subscriber` has delivered every message Redis sent it before now (a PING's
 * answer comes after them on the connection), or after `withinMs` when it does not answer.
 */
async function heardAllBefore(subscriber: Redis, withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    subscriber.ping().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs)
    }),
  ])
  clearTimeout(timer)
}

function isTerminal(task: Task): boolean {
  const state = task.status?.state
  return state !== undefined && terminal.has(state)
}
