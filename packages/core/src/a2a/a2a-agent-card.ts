/**
 * The parts of an A2A v1.0 agent card (its JSON form, as served at
 * `/.well-known/agent-card.json`) that Baton reads and writes. Other fields a remote card
 * carries are allowed and ignored.
 */
export type A2AAgentCard = {
  name: string
  description: string
  version: string
  supportedInterfaces: A2AAgentInterface[]
  capabilities?: { streaming?: boolean; pushNotifications?: boolean }
  defaultInputModes: string[]
  defaultOutputModes: string[]
  skills: A2AAgentSkill[]
  securitySchemes?: Record<string, A2ASecurityScheme>
  securityRequirements?: { schemes: Record<string, { list?: string[] }> }[]
  provider?: { organization: string; url: string }
  documentationUrl?: string
}

/** Where and how an agent is reached: a URL, its binding (`JSONRPC`, `HTTP+JSON`, `GRPC`) and the protocol version. */
export type A2AAgentInterface = {
  url: string
  protocolBinding: string
  protocolVersion: string
  tenant?: string
}

/** One thing the agent can do, with example prompts. */
export type A2AAgentSkill = {
  id: string
  name: string
  description: string
  tags: string[]
  examples?: string[]
  inputModes?: string[]
  outputModes?: string[]
}

/** A security scheme in the card's JSON form; Baton declares only HTTP bearer. */
export type A2ASecurityScheme = {
  httpAuthSecurityScheme?: { scheme: string; bearerFormat?: string; description?: string }
  [other: string]: unknown
}

/** The A2A protocol version Baton serves. */
export const A2A_PROTOCOL_VERSION = '1.0'

/** The binding name of JSON-RPC 2.0 in an agent card's `supportedInterfaces`. */
export const A2A_JSON_RPC_BINDING = 'JSONRPC'
