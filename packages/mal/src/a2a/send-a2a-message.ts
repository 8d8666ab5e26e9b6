import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  type Task,
  TaskState,
  taskStateToJSON,
} from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { isJsonRpcError } from '@a2a-js/sdk/errors'
import { BatonError, withAgentSpan } from '@baton/core'
import { SpanKind } from '@opentelemetry/api'
import { withTraceHeaders } from '../telemetry/trace-headers'
import { A2AHttpError, A2AResponseError, A2ARpcError, A2ATimeoutError } from './a2a-errors'
import { a2aPartsText } from './a2a-parts-text'
import { A2AStreamedText } from './a2a-streamed-text'
import { createA2AClient } from './create-a2a-client'

export type SendA2AMessageOptions = {
  /** The agent's card URL (`…/.well-known/agent-card.json`), or the JSON-RPC URL of an agent with no card. */
  endpoint: string
  text: string
  /** The whole exchange, polling included, must finish within this (default 120000). */
  timeoutMs?: number
  /** Aborting cancels the remote task (`CancelTask`) before the promise rejects with the reason. */
  signal?: AbortSignal
  /** Makes every request (redirects are never followed, whatever it does). */
  fetch?: typeof globalThis.fetch
  /** How often a task that is still working is polled with `GetTask` (default 250). */
  pollMs?: number
  /**
   * How long an agent that is away before the message reaches it (its card unanswered, its
   * connections refused: starting again, say) is waited for, within `timeoutMs` (default
   * 10000). An endpoint nobody ever answers on fails after this, not after `timeoutMs`.
   */
  startWaitMs?: number
  /** Continues a conversation the remote agent has seen (its A2A `contextId`). */
  contextId?: string
  /** The message's A2A `metadata` (Baton servers read `batonFrom` and `batonHop` from it). */
  metadata?: Record<string, unknown>
  /** The agent asked, for the `invoke_agent` span (default: named by the endpoint's host). */
  agent?: { wallet: string; name: string }
  /**
   * The answer's text as it comes, when the agent streams (its card says
   * `capabilities.streaming`): the pieces its task's artifact updates add (`append: true`), or a
   * streamed Message reply whole. Nothing comes from an agent that does not stream (it is sent
   * `SendMessage` and polled).
   */
  onText?: (text: string) => void
}

export type A2AReply = { text: string; taskId?: string; state?: string; contextId?: string }

const FAILED_STATES = new Set([
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
])
/** How long a cancelled step waits for the remote agent to acknowledge `CancelTask`. */
const CANCEL_TIMEOUT_MS = 5_000

/**
 * Sends one user message to a remote agent over A2A with the official `@a2a-js/sdk`
 * client (JSON-RPC; `SendStreamingMessage` when the agent's card allows it, with the text handed
 * to `onText` as the task's artifact updates bring it; `SendMessage` and polling otherwise) and
 * returns its answer: the text of the reply Message, or of the Task's artifacts once it
 * completes. When the caller aborts, the remote task is cancelled.
 *
 * @example
 * const reply = await sendA2AMessage({ endpoint: agent.endpoint, text: 'Summarize the incident' })
 * reply.text // 'Three services were affected...'
 */
export function sendA2AMessage(options: SendA2AMessageOptions): Promise<A2AReply> {
  // A CLIENT span: the agent runs elsewhere; every request carries its `traceparent`.
  const name = options.agent?.name ?? hostOf(options.endpoint)
  return withAgentSpan(
    {
      wallet: options.agent?.wallet ?? options.endpoint,
      name,
      kind: SpanKind.CLIENT,
      ...(options.contextId ? { conversationId: options.contextId } : {}),
    },
    () => sendInSpan(options),
  )
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host
  } catch {
    return 'remote'
  }
}

async function sendInSpan(options: SendA2AMessageOptions): Promise<A2AReply> {
  const { endpoint, timeoutMs = 120_000, pollMs = 250, startWaitMs = 10_000 } = options
  const baseFetch = options.fetch ?? globalThis.fetch
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout

  // A request the SDK makes without a signal of its own (the card) is bounded by the step's;
  // the cancel after an abort brings its own. No redirect is followed (it could lead to a
  // host the endpoint was never allowed to be): a 3xx, like any status other than 200,
  // becomes Baton's typed error instead of the SDK's message about it.
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await baseFetch(input, {
      ...init,
      headers: withTraceHeaders(init?.headers),
      redirect: 'manual',
      signal: init?.signal ?? signal,
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      throw new A2AHttpError({ endpoint, status: response.status })
    }
    return response
  }

  const failure = (error: unknown): unknown => {
    if (options.signal?.aborted) return options.signal.reason
    if (timeout.aborted) return new A2ATimeoutError({ endpoint, timeoutMs })
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      if (BatonError.isInstance(cause)) return cause
    }
    if (isJsonRpcError(error)) {
      return new A2ARpcError({
        endpoint,
        rpcCode: error.envelopeCode,
        rpcMessage: error.message,
        data: error.data,
      })
    }
    if (fetchFailed(error, 'fetch failed')) {
      return new A2AResponseError({
        endpoint,
        reason: 'gave no answer (the connection failed or closed)',
        cause: error,
      })
    }
    // The SDK's message may quote what the endpoint sent; a remote body never reaches an
    // error (it could be an internal service's answer), the cause keeps it for a debugger.
    return new A2AResponseError({
      endpoint,
      reason: 'answered with something that is not an A2A response',
      cause: error,
    })
  }

  let client: Client | undefined
  let taskId: string | undefined
  try {
    // The card is a read: asked again while the agent is away (restarting, say), as a task is.
    // Until the message has reached the agent, it is waited for `startWaitMs` at most.
    const startBy = Date.now() + startWaitMs
    const connection = await whileAway(signal, agentAway, startBy, () =>
      createA2AClient({ endpoint, fetch }),
    )
    const connected = connection.client
    client = connected
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: options.text }],
        ...(options.contextId ? { contextId: options.contextId } : {}),
        ...(options.metadata ? { metadata: options.metadata } : {}),
      },
      // Not blocking: the task id comes back at once, so an abort can cancel the task.
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        returnImmediately: true,
      },
    })
    let task: Task
    if (connection.streaming) {
      let reply: A2AReply | undefined
      const streamed = options.onText ? new A2AStreamedText(options.onText) : undefined
      try {
        // Opened again while its connection is refused: then nothing reached the agent.
        const events = await whileAway(signal, refused, startBy, async () => {
          const stream = connected.sendMessageStream(request, { signal })
          const first = await stream.next()
          return { first, stream }
        })
        const all = async function* () {
          if (!events.first.done) yield events.first.value
          yield* events.stream
        }
        for await (const event of all()) {
          const payload = event.payload
          if (payload?.$case === 'task') taskId = payload.value.id
          else if (payload?.$case === 'statusUpdate') taskId = payload.value.taskId
          else if (payload?.$case === 'artifactUpdate') {
            taskId = payload.value.taskId
            streamed?.update(payload.value)
          } else if (payload?.$case === 'message' && taskId === undefined) {
            reply = { text: a2aPartsText(payload.value.parts), contextId: payload.value.contextId }
          }
        }
      } catch (error) {
        // The stream broke once the task had begun (the agent restarting, a proxy's idle
        // timeout): the task goes on there, and is read as a client that polls reads it.
        if (
          taskId === undefined ||
          signal.aborted ||
          !(agentAway(error) || fetchFailed(error, 'terminated'))
        ) {
          throw error
        }
      }
      if (reply) {
        if (reply.text) options.onText?.(reply.text)
        return reply
      }
      if (taskId === undefined) {
        throw new A2AResponseError({ endpoint, reason: 'streamed neither a Message nor a Task' })
      }
      task = await readTask(client, taskId, signal)
    } else {
      // Sent again only while its connection is refused, when nothing reached the agent: an
      // agent that does not deduplicate by `messageId` would otherwise do the work twice.
      const result = await whileAway(signal, refused, startBy, () =>
        connected.sendMessage(request, { signal }),
      )
      if ('messageId' in result) {
        return { text: a2aPartsText(result.parts), contextId: result.contextId }
      }
      task = result
      taskId = task.id
    }
    for (;;) {
      const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED
      if (state === TaskState.TASK_STATE_COMPLETED) {
        const text = task.artifacts.map((artifact) => a2aPartsText(artifact.parts)).join('\n')
        return {
          text: text || a2aPartsText(task.status?.message?.parts ?? []),
          taskId: task.id,
          state: stateName(state),
          contextId: task.contextId,
        }
      }
      if (FAILED_STATES.has(state)) {
        taskId = undefined // nothing left to cancel
        const said = a2aPartsText(task.status?.message?.parts ?? [])
        throw new A2AResponseError({
          endpoint,
          reason: `ended task ${task.id} as "${stateName(state)}"${said ? `: ${said}` : ''}`,
        })
      }
      // Submitted or working: ask again until it ends or the time is up.
      await sleep(pollMs, undefined, { signal })
      task = await readTask(client, task.id, signal)
    }
  } catch (error) {
    if (client && taskId !== undefined && signal.aborted) await cancelRemoteTask(client, taskId)
    throw failure(error)
  }
}

/** Answers that say the agent did not read the request, or is away for a moment. */
const AWAY_STATUSES = new Set([502, 503, 504])
/** The waits between the reads of a task while its agent is away: doubling, up to 2 s. */
const AWAY_FIRST_WAIT_MS = 100
const AWAY_MAX_WAIT_MS = 2_000

/**
 * Whether `fetch` failed, somewhere among `error`'s causes, as `failure` says: `fetch failed`
 * for a request that got no answer at all (refused, reset or closed), `terminated` for a
 * response body cut off before its end (a stream).
 */
function fetchFailed(error: unknown, failure: 'fetch failed' | 'terminated'): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TypeError && cause.message === failure) return true
  }
  return false
}

/**
 * Whether a request failed before it reached anyone: its connection was refused (nothing
 * listens there now; the agent is starting again).
 */
function refused(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    // Refused by Baton itself (the server's endpoint guard, `ENDPOINT_REFUSED`): a decision.
    if (BatonError.isInstance(cause)) return false
    if ((cause as { code?: unknown }).code === 'ECONNREFUSED') return true
    if (cause instanceof AggregateError && cause.errors.some(refused)) return true
  }
  return false
}

/** Whether the agent of a failed request may answer the same request in a moment. */
function agentAway(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof A2AHttpError) return AWAY_STATUSES.has(cause.status)
    // Refused by Baton itself (the server's endpoint guard, `ENDPOINT_REFUSED`): a decision.
    if (BatonError.isInstance(cause)) return false
  }
  return fetchFailed(error, 'fetch failed')
}

/**
 * `GetTask`, asked again while the agent is away for a moment (no answer, `502`, `503`,
 * `504`: a restart, a proxy between two of its processes), until the step's signal ends it.
 * A read, so asking twice changes nothing; the task goes on meanwhile, and its answer is read
 * once the agent is back rather than lost with a step failed at the first missed poll.
 */
function readTask(client: Client, id: string, signal: AbortSignal): Promise<Task> {
  return whileAway(signal, agentAway, Number.POSITIVE_INFINITY, () =>
    client.getTask(GetTaskRequest.fromJSON({ id }), { signal }),
  )
}

/**
 * `ask`, asked again while it fails as `away` says, waiting from 100 ms doubling up to 2 s
 * between tries, until it answers, fails otherwise, `signal` ends it, or a wait would end past
 * `until` (a time in ms; its last failure is thrown).
 */
async function whileAway<T>(
  signal: AbortSignal,
  away: (error: unknown) => boolean,
  until: number,
  ask: () => Promise<T>,
): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await ask()
    } catch (error) {
      const waitMs = Math.min(AWAY_FIRST_WAIT_MS * 2 ** (tries - 1), AWAY_MAX_WAIT_MS)
      if (signal.aborted || !away(error) || Date.now() + waitMs > until) throw error
      await sleep(waitMs, undefined, { signal })
    }
  }
}

/** Asks the remote agent to stop; a refusal or silence changes nothing for the caller. */
async function cancelRemoteTask(client: Client, taskId: string): Promise<void> {
  try {
    await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }), {
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    })
  } catch {
    // The task may have finished meanwhile (TaskNotCancelable) or the agent be gone.
  }
}

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`, the spelling of A2A's JSON and docs. */
function stateName(state: TaskState): string {
  return taskStateToJSON(state)
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replaceAll('_', '-')
}
