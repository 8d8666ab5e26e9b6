import type { Agent } from '../schemas'
import {
  A2A_JSON_RPC_BINDING,
  A2A_PROTOCOL_VERSION,
  type A2AAgentCard,
  type A2AAgentSkill,
} from './a2a-agent-card'

export type ToA2AAgentCardOptions = {
  /** The agent's JSON-RPC endpoint, e.g. `https://baton.example.com/a2a/analyst`. */
  url: string
  /** The agent's version (default `1.0.0`). */
  version?: string
  /** Declare an HTTP bearer security scheme and require it (when the server has an API token). */
  bearer?: boolean
}

const TEXT_MODES = ['text/plain', 'application/json']

/**
 * The A2A v1.0 agent card of a Baton agent: its name, its capability description, a
 * JSON-RPC interface at `url`, streaming, and one skill per capability carrying the card's
 * example prompts. Trust tier and delegation rights stay out: they are the registry's word
 * about an agent, not something an agent says of itself.
 *
 * @example
 * const card = toA2AAgentCard(agent, { url: 'https://baton.example.com/a2a/analyst' })
 * card.supportedInterfaces[0] // { url: '…/a2a/analyst', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }
 */
export function toA2AAgentCard(agent: Agent, options: ToA2AAgentCardOptions): A2AAgentCard {
  const { agentCard } = agent
  const description =
    agentCard.capabilityDescription || agentCard.tagline || agent.description || agent.name
  const skills: A2AAgentSkill[] = agent.capabilities.map((capability) => ({
    id: capability,
    name: capability,
    description: `${agent.name}: ${capability}`,
    tags: [capability],
    examples: [...agentCard.examples],
  }))
  if (skills.length === 0) {
    // A card with no skill tells a client nothing it can ask for; the agent as a whole is one.
    skills.push({
      id: agent.id,
      name: agent.name,
      description,
      tags: [agent.type],
      examples: [...agentCard.examples],
    })
  }
  return {
    name: agent.name,
    description,
    version: options.version ?? '1.0.0',
    supportedInterfaces: [
      {
        url: options.url,
        protocolBinding: A2A_JSON_RPC_BINDING,
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: [...TEXT_MODES],
    defaultOutputModes: [...TEXT_MODES],
    skills,
    ...(options.bearer
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: {
                scheme: 'Bearer',
                description: 'The server API token (BATON_API_TOKEN).',
              },
            },
          },
          securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        }
      : {}),
  }
}
