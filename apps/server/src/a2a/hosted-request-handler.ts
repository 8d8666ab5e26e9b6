import {
  type AgentCard,
  GetTaskRequest,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  SubscribeToTaskRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors'
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBusManager,
  type ServerCallContext,
} from '@a2a-js/sdk/server'
import { TaskAlreadyEndedError } from '../db/a2a-task-rows'
import { type A2ATaskStore, settled as settledStates } from './a2a-task-store'
import { unacceptedAnswer, unreadablePart, unsupportedPushNotifications } from './message-parts'
import { TASK_START_STATE_KEY, type TaskClaim, type TaskStarts } from './task-starts'

/**
 * The SDK's request handler, with what it leaves to the server:
 *
 * - A message that starts a task, sent again with its `messageId` (a client's retry, or a
 *   duplicate sent at once), is answered with the task the first started, and the agent runs
 *   once (`TaskStarts`). A blocking retry gets the task once it is settled, one answered at
 *   once gets it as it is, and a streaming one follows it as `SubscribeToTask` does (the task
 *   as it is, then its updates to its end; one `task` event for a task that has settled).
 * - A message with a part its agent would not read (a file by URL, or inline of a media type
 *   other than text/plain and application/json) is refused with `-32005` naming the part,
 *   before anything runs: the agent would answer, and be charged for, the message without it.
 *   So is one whose `acceptedOutputModes` take none of the media types its answer comes in.
 * - A message to a task that is still running (`taskId`, the task submitted or working, on
 *   this process or another) is refused with `-32004` (UnsupportedOperationError), as one to
 *   a task that has ended is: a hosted agent's task runs one message and never asks for more,
 *   so the SDK would run the agent again on the same task, its answer lost and its first run
 *   past the reach of a cancel. The next message goes in the task's context, as a task of its
 *   own.
 * - A message whose task another process ended meanwhile (its executor here was cut off past
 *   its lease, or the task was cancelled elsewhere, and the save of this process's end was
 *   refused: `TaskAlreadyEndedError`) is answered with the task as it is stored: a blocking
 *   `SendMessage` returns it, a stream ends with it. The SDK would answer an internal error
 *   (`-32603`) for a task that did end, and whose end `GetTask` shows.
 *
 * @example
 * const handler = new HostedRequestHandler(card, taskStore, executor, buses, starts)
 */
export class HostedRequestHandler extends DefaultRequestHandler {
  readonly #store: A2ATaskStore
  readonly #starts: TaskStarts

  constructor(
    card: AgentCard,
    store: A2ATaskStore,
    executor: AgentExecutor,
    buses: ExecutionEventBusManager,
    starts: TaskStarts,
  ) {
    super(card, store, executor, buses)
    this.#store = store
    this.#starts = starts
  }

  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const start = await this.#claim(params, context)
    if (typeof start === 'string') {
      return this.#started(start, params, context, params.configuration?.returnImmediately !== true)
    }
    try {
      return await super.sendMessage(params, context)
    } catch (error) {
      return this.#storedEnd(error, params, context)
    } finally {
      if (start) this.#starts.end(start)
    }
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const start = await this.#claim(params, context)
    if (typeof start === 'string') {
      yield* this.#follow(start, params, context)
      return
    }
    try {
      yield* super.sendMessageStream(params, context)
    } catch (error) {
      yield { payload: { $case: 'task', value: await this.#storedEnd(error, params, context) } }
    } finally {
      if (start) this.#starts.end(start)
    }
  }

  /**
   * For a message that starts a task: the id of the task it started already, or this
   * request's claim to start it (left in the call context for the executor). Undefined for a
   * message to a task that exists (the SDK checks it is there and has not ended; a running
   * one is refused here). A message with a part its agent would not read, that accepts no
   * answer it could give, or that asks for push notifications, is refused first.
   */
  async #claim(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<string | TaskClaim | undefined> {
    const message = params.message
    const refusal =
      (message && unreadablePart(message)) ??
      unacceptedAnswer(params.configuration) ??
      unsupportedPushNotifications(params.configuration)
    if (refusal) throw refusal
    if (message?.taskId) {
      await this.#refuseWhileRunning(message.taskId, context)
      return undefined
    }
    if (!message?.messageId) return undefined
    const start = await this.#starts.claim(message, context)
    if ('started' in start) return start.started
    context.state.set(TASK_START_STATE_KEY, start.claim)
    return start.claim
  }

  /** Refuses a message to a task still running (see the class): it would run the agent again. */
  async #refuseWhileRunning(taskId: string, context: ServerCallContext): Promise<void> {
    const task = await this.#store.load(taskId, context)
    const state = task?.status?.state
    if (state !== TaskState.TASK_STATE_SUBMITTED && state !== TaskState.TASK_STATE_WORKING) return
    throw new UnsupportedOperationError({
      message: `params.message.taskId: task ${taskId} is ${state === TaskState.TASK_STATE_SUBMITTED ? 'submitted' : 'working'}, and a hosted agent's task takes no further message. Send the next message without a taskId, in the task's context (contextId "${task?.contextId}"), or cancel the task first.`,
      metadata: { field: 'params.message.taskId' },
    })
  }

  /**
   * A streamed retry of a message whose task `taskId` is: settled, one `task` event; still
   * running (here or on another process), followed as `SubscribeToTask` follows it, so the
   * client sees it work rather than waiting in silence for its end, and then its settled state
   * (should the subscription end before it, as when the task ends between the look and the
   * subscription, it is read as stored).
   */
  async *#follow(
    taskId: string,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    let task: Task | undefined
    try {
      task = await this.#stored(taskId, params, context)
    } catch (error) {
      // Announced and not saved yet (its first event still on its way).
      if (!(error instanceof TaskNotFoundError)) throw error
    }
    let state = task?.status?.state
    if (task && state !== undefined && settledStates.has(state)) {
      yield { payload: { $case: 'task', value: task } }
      return
    }
    if (task) {
      try {
        for await (const event of this.resubscribe(
          SubscribeToTaskRequest.fromJSON({ id: taskId }),
          context,
        )) {
          const payload = event.payload
          if (payload?.$case === 'task') state = payload.value.status?.state
          if (payload?.$case === 'statusUpdate') state = payload.value.status?.state
          yield event
        }
      } catch (error) {
        // Ended between the look and the subscription: it is answered as it ended, below.
        if (!(error instanceof UnsupportedOperationError)) throw error
        state = undefined
      }
    }
    if (state === undefined || !settledStates.has(state)) {
      yield {
        payload: { $case: 'task', value: await this.#started(taskId, params, context, true) },
      }
    }
  }

  /** The task a message sent before started: once settled (`settled`), or as it is now. */
  async #started(
    taskId: string,
    params: SendMessageRequest,
    context: ServerCallContext,
    settled: boolean,
  ): Promise<Task> {
    if (settled) await this.#store.whenSettled(taskId, context)
    let task: Task
    try {
      task = await this.#stored(taskId, params, context)
    } catch (error) {
      // Announced and not saved yet (its first event still on its way): it is, once settled.
      if (!(error instanceof TaskNotFoundError)) throw error
      await this.#store.whenSettled(taskId, context)
      return this.#stored(taskId, params, context)
    }
    const state = task.status?.state
    if (!settled || state === undefined || settledStates.has(state)) return task
    // Still running on another process: followed (SubscribeToTask's way) to its end, then
    // read until its process has stored how it settled (a moment after it said so).
    for await (const _ of this.resubscribe(
      SubscribeToTaskRequest.fromJSON({ id: taskId }),
      context,
    )) {
      // Each event is a step of it; the stream ends when its execution does.
    }
    for (let tries = 0; ; tries += 1) {
      task = await this.#stored(taskId, params, context)
      const now = task.status?.state
      if (now === undefined || settledStates.has(now) || tries === 40) return task
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  /** The task as stored, when `error` is the refusal of a save over its stored end. */
  async #storedEnd(
    error: unknown,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Task> {
    if (!(error instanceof TaskAlreadyEndedError)) throw error
    return this.#stored(error.taskId, params, context)
  }

  #stored(taskId: string, params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    const historyLength = params.configuration?.historyLength
    return this.getTask(
      GetTaskRequest.fromJSON({
        id: taskId,
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
      context,
    )
  }
}
