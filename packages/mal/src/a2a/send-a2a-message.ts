import { randomUUID } from 'node:crypto'
import { BatonError } from '@baton/core'
import { A2AHttpError, A2AResponseError, A2ARpcError, A2ATimeoutError } from './a2a-errors'
import { A2AMessage, A2ATask, JsonRpcResponse, partsText } from './a2a-schema'

export type SendA2AMessageOptions = {
  /** The agent's JSON-RPC endpoint. */
  endpoint: string
  text: string
  /** The whole exchange, polling included, must finish within this (default 120000). */
  timeoutMs?: number
  signal?: AbortSignal
  fetch?: typeof globalThis.fetch
  /** How often a task that is still working is polled with `tasks/get` (default 250). */
  pollMs?: number
}

export type A2AReply = { text: string; taskId?: string; state?: string }

const TERMINAL_FAILURES = new Set([
  'failed',
  'canceled',
  'rejected',
  'auth-required',
  'input-required',
])

/**
 * Sends one user message to a remote agent over A2A (JSON-RPC 2.0 `message/send`) and returns
 * its answer: the text of the reply Message, or of the Task's artifacts once it completes.
 *
 * @example
 * const reply = await sendA2AMessage({ endpoint: agent.endpoint, text: 'Summarize the incident' })
 * reply.text // 'Three services were affected...'
 */
export async function sendA2AMessage(options: SendA2AMessageOptions): Promise<A2AReply> {
  const { endpoint, timeoutMs = 120_000, pollMs = 250 } = options
  const fetch = options.fetch ?? globalThis.fetch
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout

  const call = async (method: string, params: unknown): Promise<unknown> => {
    let response: Response
    let body: string
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
        signal,
      })
      body = await response.text()
    } catch (error) {
      throw failure(error)
    }
    if (response.status !== 200) throw new A2AHttpError({ endpoint, status: response.status })
    let json: unknown
    try {
      json = JSON.parse(body)
    } catch (error) {
      throw new A2AResponseError({
        endpoint,
        reason: 'answered with a body that is not JSON',
        cause: error,
      })
    }
    const parsed = JsonRpcResponse.safeParse(json)
    if (!parsed.success) {
      throw new A2AResponseError({
        endpoint,
        reason: 'answered with something that is not a JSON-RPC 2.0 response',
      })
    }
    if (parsed.data.error) {
      const { code, message, data } = parsed.data.error
      throw new A2ARpcError({ endpoint, rpcCode: code, rpcMessage: message, data })
    }
    return parsed.data.result
  }

  const failure = (error: unknown): unknown => {
    if (options.signal?.aborted) return options.signal.reason
    if (timeout.aborted) return new A2ATimeoutError({ endpoint, timeoutMs })
    if (BatonError.isInstance(error)) return error
    return new A2AResponseError({
      endpoint,
      reason: `could not be reached (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    })
  }

  let result = await call('message/send', {
    message: {
      role: 'user',
      parts: [{ kind: 'text', text: options.text }],
      messageId: randomUUID(),
      kind: 'message',
    },
    configuration: { blocking: true, acceptedOutputModes: ['text/plain', 'application/json'] },
  })
  for (;;) {
    const message = A2AMessage.safeParse(result)
    if (message.success) return { text: partsText(message.data.parts) }
    const task = A2ATask.safeParse(result)
    if (!task.success) {
      throw new A2AResponseError({ endpoint, reason: 'answered with neither a Message nor a Task' })
    }
    const { id, status, artifacts = [] } = task.data
    if (status.state === 'completed') {
      const text = artifacts.map((artifact) => partsText(artifact.parts)).join('\n')
      return {
        text: text || partsText(status.message?.parts ?? []),
        taskId: id,
        state: status.state,
      }
    }
    if (TERMINAL_FAILURES.has(status.state)) {
      const said = partsText(status.message?.parts ?? [])
      throw new A2AResponseError({
        endpoint,
        reason: `ended task ${id} as "${status.state}"${said ? `: ${said}` : ''}`,
      })
    }
    // submitted / working: ask again until it ends or the time is up.
    try {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, pollMs)
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer)
            reject(signal.reason)
          },
          { once: true },
        )
      })
    } catch (error) {
      throw failure(error)
    }
    result = await call('tasks/get', { id })
  }
}
