import { AgentCard } from '@a2a-js/sdk'
import { type A2AAgentCard, type Agent, toA2AAgentCard } from '@baton/core'

/**
 * A hosted agent's A2A card, served at `/a2a/:agentId/.well-known/agent-card.json`: core's
 * v1.0 mapping of its Baton card, with its JSON-RPC endpoint under `baseUrl`, plus the same
 * endpoint declared for v0.3 so that older clients (which send no `A2A-Version`) are served.
 *
 * @example
 * hostedAgentCard(agent, { baseUrl: 'http://127.0.0.1:8787', bearer: false }).supportedInterfaces[0].url
 * // 'http://127.0.0.1:8787/a2a/analyst'
 */
export function hostedAgentCard(
  agent: Agent,
  options: { baseUrl: string; bearer: boolean },
): A2AAgentCard {
  const url = `${options.baseUrl}/a2a/${encodeURIComponent(agent.id)}`
  const card = toA2AAgentCard(agent, { url, bearer: options.bearer })
  return {
    ...card,
    supportedInterfaces: [
      ...card.supportedInterfaces,
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
  }
}

/**
 * The SDK's own form of a card (what `DefaultRequestHandler` takes).
 *
 * @example
 * new DefaultRequestHandler(toSdkAgentCard(card), taskStore, executor)
 */
export function toSdkAgentCard(card: A2AAgentCard): AgentCard {
  return AgentCard.fromJSON(card)
}
