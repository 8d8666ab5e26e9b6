import { type Agent, ValidationError } from '@baton/core'
import { type A2AReply, sendA2AMessage } from '@baton/mal'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'

export type AskRemoteAgentOptions = {
  /** The agent to ask; it must have an `endpoint` (its A2A card URL). */
  agent: Agent
  content: string
  /** The conversation the question belongs to: sent as the A2A `contextId`. */
  correlationId: string
  /** The hop of the message being handled; the question is one hop further. */
  hop: number
  /** Who asks (an agent id), recorded by a Baton server on the other side. */
  from: string
  signal?: AbortSignal
  timeoutMs?: number
  /** How the endpoint is called (default: public addresses only, no redirects). */
  fetch?: typeof globalThis.fetch
  /** The answer's text as it comes, when the agent streams (see `sendA2AMessage`). */
  onText?: (text: string) => void
}

let publicOnlyFetch: typeof globalThis.fetch | undefined
const defaultFetch = () => {
  publicOnlyFetch ??= createEndpointFetch({ allowPrivate: false })
  return publicOnlyFetch
}

/**
 * Asks an agent that lives at an A2A endpoint, from inside a conversation: the
 * conversation's correlation travels as the `contextId` and its hop count in
 * `metadata.batonHop`, so a Baton server on the other side continues both (and its loop
 * guard stops a loop that crosses servers). Aborting cancels the remote task.
 *
 * @example
 * const { text } = await askRemoteAgent({ agent: peer, content: 'Check the refunds', correlationId, hop, from: 'orchestrator' })
 */
export async function askRemoteAgent(options: AskRemoteAgentOptions): Promise<A2AReply> {
  if (!options.agent.endpoint) {
    throw new ValidationError(`agent "${options.agent.id}"`, [
      { path: 'endpoint', message: 'is required to ask the agent over A2A' },
    ])
  }
  return sendA2AMessage({
    endpoint: options.agent.endpoint,
    text: options.content,
    contextId: options.correlationId,
    metadata: { batonFrom: options.from, batonHop: options.hop + 1 },
    agent: { wallet: options.agent.wallet, name: options.agent.name },
    fetch: options.fetch ?? defaultFetch(),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.onText ? { onText: options.onText } : {}),
  })
}
