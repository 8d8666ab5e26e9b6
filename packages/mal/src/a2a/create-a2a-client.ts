import { AgentCard } from '@a2a-js/sdk'
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client'

export type CreateA2AClientOptions = {
  /** An agent card URL (ending in `.json`), or the JSON-RPC URL of an agent that publishes no card. */
  endpoint: string
  fetch: typeof globalThis.fetch
}

/** An SDK client for one remote agent, and whether its card lets it stream. */
export type A2AConnection = { client: Client; card: AgentCard; streaming: boolean }

/**
 * The official SDK client for one remote agent, over JSON-RPC. A card URL is fetched and
 * the client follows it (its v1.0 or v0.3 interface, streaming as the card says); any
 * other URL is taken as the JSON-RPC endpoint of an agent without a card, spoken to in
 * v0.3 (the dialect of agents that publish none) and polled.
 *
 * @example
 * const { client, streaming } = await createA2AClient({ endpoint: 'https://agents.example/a2a/analyst/.well-known/agent-card.json', fetch })
 */
export async function createA2AClient(options: CreateA2AClientOptions): Promise<A2AConnection> {
  const legacyCompat = { enabled: true }
  const resolver = new DefaultAgentCardResolver({ fetchImpl: options.fetch, legacyCompat })
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: options.fetch, legacyCompat })],
    cardResolver: resolver,
  })
  const card = isCardUrl(options.endpoint)
    ? await resolver.resolve(options.endpoint, '')
    : AgentCard.fromJSON({
        name: options.endpoint,
        supportedInterfaces: [
          { url: options.endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        capabilities: { streaming: false },
      })
  const client = await factory.createFromAgentCard(card)
  return { client, card, streaming: card.capabilities?.streaming === true }
}

/**
 * Whether a URL names an agent card (a `.json` document) rather than a JSON-RPC endpoint.
 *
 * @example
 * isCardUrl('https://agents.example/a2a/analyst/.well-known/agent-card.json') // true
 */
export function isCardUrl(endpoint: string): boolean {
  return new URL(endpoint).pathname.endsWith('.json')
}
