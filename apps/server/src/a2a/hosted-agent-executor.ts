import { type Message, type Part, TaskState } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server'
import { LoopGuardError } from '@baton/comm'
import type { Agent } from '@baton/core'
import { drainWithin } from '../services/drain-within'
import type { A2AServices } from './a2a-services'
import { agentMessage, textPart } from './agent-message'
import { type Conversation, findConversation, type RunningTask } from './find-conversation'
import { NEW_CONTEXT_STATE_KEY, STREAMING_STATE_KEY } from './handle-json-rpc'
import { textOfParts } from './message-parts'

export type HostedAgentExecutorOptions = Pick<
  A2AServices,
  'db' | 'hops' | 'recordMessage' | 'runHostedAgent'
> & {
  /** The hosted agent a request is for (the JSON-RPC endpoint puts it in the call context). */
  agentOf(context: RequestContext): Agent
  /** Asks the process executing a task that does not run here to cancel it (scale-out). */
  cancelElsewhere?: (taskId: string) => void
  /** Tells the task store that a task id is new (its first load needs no query). */
  expectNewTask?: (taskId: string, context: ServerCallContext) => void
}

/** The executor, and what a stopping server asks of it. */
export type HostedAgentExecutor = AgentExecutor & {
  /**
   * Waits, at most `timeoutMs`, for the tasks executing here to end; what is still executing
   * then is stopped and failed ("the server stopped"), so no task is left working for ever.
   */
  drain(timeoutMs: number): Promise<void>
}

/** Where the endpoint leaves the hosted agent for the executor, in the call context's state. */
export const HOSTED_AGENT_STATE_KEY = 'baton.hosted-agent'

/**
 * The A2A executor of hosted agents: each message runs the agent once through the agent
 * host (its budget, its ledger, its loop guard) and becomes a task whose artifact is the
 * answer. Work an agent passes on (a message in a context where an agent is still working,
 * or from a Baton agent) continues its conversation one hop further; a client's own turn is
 * a chain of its own at hop 0 (see `findConversation`). The task keeps both in `metadata.baton`.
 *
 * @example
 * const executor = createHostedAgentExecutor({ ...services, agentOf: (context) => context.context.state.get(HOSTED_AGENT_STATE_KEY) as Agent })
 * new DefaultRequestHandler(card, taskStore, executor)
 */
export function createHostedAgentExecutor(
  options: HostedAgentExecutorOptions,
): HostedAgentExecutor {
  const running = new Map<string, RunningTask>()
  const controllers = new Map<string, AbortController>()
  // Every execution, until it ends: a stop waits for them (a client that went away, or one
  // answered at once, does not hold its request open while its task runs).
  const executing = new Set<Promise<void>>()
  let stopping = false

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context
      const agent = options.agentOf(context)
      // A client's own turn starts a chain at hop 0; only work passed on between agents counts.
      const conversation: Conversation = await findConversation({
        db: options.db,
        contextId,
        taskId,
        claimedHop: hopOf(context.userMessage),
        hops: options.hops,
        running: running.values(),
        newContext: !context.task && context.context?.state.get(NEW_CONTEXT_STATE_KEY) === true,
      })
      const publishTask = (state: TaskState, message?: Message) =>
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: { state, message, timestamp: new Date().toISOString() },
            artifacts: context.task?.artifacts ?? [],
            history: [...(context.task?.history ?? []), context.userMessage],
            metadata: { ...context.task?.metadata, baton: conversation },
          }),
        )
      const publishStatus = (state: TaskState, message?: Message) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: { state, message, timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        )

      const controller = new AbortController()
      controllers.set(taskId, controller)
      running.set(taskId, { taskId, contextId, conversation })
      // A task the SDK made up an id for: nothing can be stored under it yet.
      if (!context.task && context.context) options.expectNewTask?.(taskId, context.context)
      publishTask(TaskState.TASK_STATE_SUBMITTED)
      publishStatus(TaskState.TASK_STATE_WORKING)
      const input = textOfParts(context.userMessage.parts)
      const from = fromOf(context.userMessage)
      try {
        await options.recordMessage({ from, to: agent.id, content: input, ...conversation })
      } catch (error) {
        controllers.delete(taskId)
        running.delete(taskId)
        // The loop guard refused the hop (held for a person past maxHops, or the chain stopped):
        // rejected. Anything else (the bus's Redis away) is a failure, not a decision.
        const refused = error instanceof LoopGuardError
        publishStatus(
          refused ? TaskState.TASK_STATE_REJECTED : TaskState.TASK_STATE_FAILED,
          agentMessage(context, errorText(error)),
        )
        bus.finished()
        return
      }
      const answer = (parts: Part[], metadata: Record<string, unknown> | undefined) => ({
        artifactId: `${taskId}-answer`,
        name: 'answer',
        description: `${agent.name}'s answer`,
        parts,
        metadata,
        extensions: [],
      })
      // A streaming client gets the text as it is written, appended to the answer artifact;
      // the last update replaces those pieces with the whole answer (what SendMessage returns).
      const streaming = context.context?.state.get(STREAMING_STATE_KEY) === true
      const onDelta = (text: string) => {
        if (controller.signal.aborted) return
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: answer([textPart(text)], undefined),
            append: true,
            lastChunk: false,
            metadata: undefined,
          }),
        )
      }
      try {
        const result = await options.runHostedAgent({
          agent,
          input,
          correlationId: conversation.correlationId,
          hop: conversation.hop,
          signal: controller.signal,
          from,
          ...(streaming ? { onDelta } : {}),
        })
        if (controller.signal.aborted && !stopping) return
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: answer([textPart(result.text)], { usage: result.usage }),
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        )
        publishStatus(TaskState.TASK_STATE_COMPLETED)
      } catch (error) {
        // Cancelled: the cancel says so. Stopped with the server: failed, and said why.
        if (controller.signal.aborted && !stopping) return
        const why = stopping ? 'The server stopped before the agent answered.' : errorText(error)
        publishStatus(TaskState.TASK_STATE_FAILED, agentMessage(context, why))
      } finally {
        controllers.delete(taskId)
        running.delete(taskId)
      }
      bus.finished()
    },

    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      const controller = controllers.get(taskId)
      if (controller) controller.abort(new Error(`A2A task ${taskId} was cancelled`))
      else options.cancelElsewhere?.(taskId)
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
    execute(context, bus) {
      const work = executor.execute(context, bus)
      executing.add(work)
      const forget = () => executing.delete(work)
      work.then(forget, forget)
      return work
    },
    cancelTask: (taskId, bus) => executor.cancelTask(taskId, bus),
    async drain(timeoutMs) {
      await drainWithin(executing, timeoutMs, () => {
        stopping = true
        for (const controller of controllers.values()) {
          controller.abort(new Error('the server is stopping'))
        }
      })
    },
  }
}

/** Who asked, for the ledger and the bus: a calling Baton agent names itself in the metadata. */
function fromOf(message: Message): string {
  const from = message.metadata?.batonFrom
  return typeof from === 'string' && from ? from : 'a2a-client'
}

/** The hop a calling Baton agent gave this message (`metadata.batonHop`), else undefined. */
function hopOf(message: Message): number | undefined {
  const hop = message.metadata?.batonHop
  return typeof hop === 'number' && Number.isInteger(hop) && hop >= 0 ? hop : undefined
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message
  }
  return String(error)
}
