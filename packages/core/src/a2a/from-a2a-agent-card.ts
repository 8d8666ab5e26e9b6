import type { AgentCardInput } from '../schemas'
import { A2A_JSON_RPC_BINDING, type A2AAgentCard } from './a2a-agent-card'

/** What a remote A2A agent card says about the agent, in the shape of Baton's agent fields. */
export type A2AAgentCardFields = {
  name: string
  description: string
  /** One per skill (its tags, or its name when it has none), without repeats. */
  capabilities: string[]
  agentCard: Required<Pick<AgentCardInput, 'capabilityDescription' | 'a2aVersion' | 'examples'>>
  /** The JSON-RPC interface URL, when the card lists one. */
  jsonRpcUrl?: string
  streaming: boolean
}

/**
 * Reads a remote A2A agent card into Baton's agent fields: the inverse of
 * `toA2AAgentCard` for everything the A2A card carries (trust tier and `canDelegate` are
 * left to the registry).
 *
 * @example
 * const fields = fromA2AAgentCard(await (await fetch(cardUrl)).json())
 * registerAgent({ ...fields, endpoint: cardUrl, wallet, creator, type: 'specialist', model: 'offline:default' })
 */
export function fromA2AAgentCard(card: A2AAgentCard): A2AAgentCardFields {
  const jsonRpc = card.supportedInterfaces.find(
    (entry) => entry.protocolBinding.toUpperCase() === A2A_JSON_RPC_BINDING,
  )
  const capabilities = [
    ...new Set(card.skills.flatMap((skill) => (skill.tags.length ? skill.tags : [skill.name]))),
  ]
  const examples = [...new Set(card.skills.flatMap((skill) => skill.examples ?? []))]
  return {
    name: card.name,
    description: card.description,
    capabilities,
    agentCard: {
      capabilityDescription: card.description,
      a2aVersion: jsonRpc?.protocolVersion ?? card.supportedInterfaces[0]?.protocolVersion ?? '',
      examples,
    },
    ...(jsonRpc ? { jsonRpcUrl: jsonRpc.url } : {}),
    streaming: card.capabilities?.streaming === true,
  }
}
