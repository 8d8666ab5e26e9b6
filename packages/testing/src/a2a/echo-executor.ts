import { setTimeout as sleep } from 'node:timers/promises'
import { TaskState } from '@a2a-js/sdk'
import { AgentEvent, type AgentExecutor } from '@a2a-js/sdk/server'
import { textArtifactUpdate } from './text-artifact-update'

export type EchoExecutorOptions = {
  /** How long each task works before it answers (default 0). */
  workMs?: number
  /** A task whose text contains this works until it is cancelled (e.g. `slow`). */
  slowWord?: string
  /** The id and name of the answer's artifact (default `answer`). */
  artifactId?: string
  /**
   * Streams the answer as a model would: pieces of `size` characters appended to the artifact
   * (`append: true`) `delayMs` apart, then the whole answer in a last update that replaces
   * them (`append: false, lastChunk: true`), as a Baton server does. Without it the answer is
   * one update. Every client sees the pieces (the SDK publishes them to the task's bus).
   */
  pieces?: { size: number; delayMs: number }
}

export type EchoExecutor = {
  executor: AgentExecutor
  /** The texts it was sent. */
  received: string[]
  /** Ids of the tasks a client cancelled. */
  cancelled: string[]
  /** Ends every task still working. */
  abortAll(): void
}

/**
 * The executor of the echo agent: every message becomes a task whose artifact is
 * `echo: <text>`; a cancel ends the task as canceled at once.
 *
 * @example
 * const { executor } = createEchoExecutor({ workMs: 50 })
 * new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)
 */
export function createEchoExecutor({
  workMs = 0,
  slowWord,
  artifactId = 'answer',
  pieces,
}: EchoExecutorOptions = {}): EchoExecutor {
  const received: string[] = []
  const cancelled: string[] = []
  const running = new Map<string, AbortController>()
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId } = context
      const said = context.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('')
      received.push(said)
      const stop = new AbortController()
      running.set(taskId, stop)
      const status = (state: TaskState) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        })
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_SUBMITTED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        }),
      )
      bus.publish(status(TaskState.TASK_STATE_WORKING))
      const answer = `echo: ${said}`
      const update = (text: string, append: boolean) =>
        AgentEvent.artifactUpdate(
          textArtifactUpdate({ taskId, contextId, artifactId, text, append }),
        )
      try {
        const slow = slowWord !== undefined && said.includes(slowWord)
        await sleep(slow ? 120_000 : workMs, undefined, { signal: stop.signal })
        for (let at = 0; pieces && at < answer.length; at += pieces.size) {
          if (at > 0) await sleep(pieces.delayMs, undefined, { signal: stop.signal })
          bus.publish(update(answer.slice(at, at + pieces.size), true))
        }
      } catch {
        return // cancelTask has published the end of this task
      } finally {
        running.delete(taskId)
      }
      bus.publish(update(answer, false))
      bus.publish(status(TaskState.TASK_STATE_COMPLETED))
      bus.finished()
    },
    async cancelTask(taskId, bus) {
      cancelled.push(taskId)
      running.get(taskId)?.abort()
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      )
      bus.finished()
    },
  }
  return {
    executor,
    received,
    cancelled,
    abortAll: () => {
      for (const stop of running.values()) stop.abort()
    },
  }
}
