import {
  GetTaskRequest,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk'
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server'
import { TaskAlreadyEndedError } from '../db/a2a-task-rows'

/**
 * The SDK's request handler, which answers a message whose task another process ended meanwhile
 * (its executor here was cut off past its lease, or the task was cancelled elsewhere, and the
 * save of this process's end was refused: `TaskAlreadyEndedError`) with the task as it is
 * stored: a blocking `SendMessage` returns it, a stream ends with it. The SDK would answer an
 * internal error (`-32603`) for a task that did end, and whose end `GetTask` shows.
 *
 * @example
 * const handler = new HostedRequestHandler(card, taskStore, executor, buses)
 */
export class HostedRequestHandler extends DefaultRequestHandler {
  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    try {
      return await super.sendMessage(params, context)
    } catch (error) {
      return this.#storedEnd(error, params, context)
    }
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      yield* super.sendMessageStream(params, context)
    } catch (error) {
      yield { payload: { $case: 'task', value: await this.#storedEnd(error, params, context) } }
    }
  }

  /** The task as stored, when `error` is the refusal of a save over its stored end. */
  async #storedEnd(
    error: unknown,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Task> {
    if (!(error instanceof TaskAlreadyEndedError)) throw error
    const historyLength = params.configuration?.historyLength
    return this.getTask(
      GetTaskRequest.fromJSON({
        id: error.taskId,
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
      context,
    )
  }
}
