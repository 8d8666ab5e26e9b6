import { AgentStatus, AgentType, TrustTier } from '@baton/core'
import { z } from 'zod'
import { SCOPES } from '../../auth/principal'

// What the agent, key, health, runtime and catalogue routes answer, as JSON on the wire.
// Core's `Agent` is an input schema (defaults, transforms, checks): these say only what is sent.

/** A JSON Schema, kept as the agent or the tool gave it. */
const JsonSchemaObject = z.record(z.string(), z.unknown())

export const AgentCardJson = z
  .object({
    tagline: z.string(),
    capabilityDescription: z.string(),
    trustTier: TrustTier.describe(
      'the tier the agent counts as: what it asks, up to what an admin granted',
    ),
    canDelegate: z.boolean().describe('whether the agent gets tools to forward work to peers'),
    a2aVersion: z.string(),
    examples: z.array(z.string()),
    inputSchema: JsonSchemaObject.optional().describe(
      'JSON Schema of what the agent takes; a message is checked against it first',
    ),
    outputSchema: JsonSchemaObject.optional().describe(
      'JSON Schema of what the agent answers (asked of its model as structured output)',
    ),
  })
  .meta({ id: 'AgentCard', description: 'What an agent tells others about itself.' })

export const AgentJson = z
  .object({
    id: z.string().describe('a slug, unique among live agents'),
    wallet: z.string().describe('the agent’s wallet, EIP-55 checksummed'),
    creator: z.string().describe('the wallet of who registered it, EIP-55 checksummed'),
    name: z.string(),
    description: z.string(),
    type: AgentType,
    model: z.string().describe('`provider:model-id`, e.g. `offline:default`'),
    provider: z.string().describe('the provider part of `model`'),
    capabilities: z.array(z.string()),
    tools: z.array(z.string()).describe('the tools the card asks for (see GET /api/v1/tools)'),
    persona: z.string().optional(),
    memoryScope: z
      .string()
      .describe('whose memory the agent reads and writes: its own wallet unless shared'),
    maxIterations: z.number().int(),
    temperature: z.number(),
    status: AgentStatus,
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
    config: z.record(z.string(), z.unknown()).describe('free-form settings of the agent'),
    endpoint: z
      .string()
      .optional()
      .describe('where the agent is called over HTTP, if hosted elsewhere'),
    agentCard: AgentCardJson,
  })
  .meta({ id: 'Agent', description: 'A registered, wallet-addressed agent.' })

export const AgentTrustJson = z
  .object({
    requested: TrustTier.describe('the tier the registration asks'),
    granted: TrustTier.nullable().describe('the tier an admin granted; null: none'),
    effective: TrustTier.describe('what the agent counts as: requested, up to granted (or low)'),
  })
  .meta({ id: 'AgentTrust', description: 'An agent’s trust tier: asked, granted and effective.' })

export const AgentHistoryEntry = z
  .object({
    change: z.enum(['register', 'update', 'revoke']),
    agent: z
      .record(z.string(), z.unknown())
      .describe('the agent as this change stored it (the Agent schema of its time)'),
    signer: z.string().describe('the wallet that signed the change'),
    at: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'AgentHistoryEntry', description: 'One change of an agent, oldest first.' })

/** `GET /api/v1/agents/:wallet`. */
export const AgentDetails = z
  .object({
    agent: AgentJson,
    trust: AgentTrustJson,
    history: z.array(AgentHistoryEntry),
  })
  .meta({ id: 'AgentDetails', description: 'An agent, its trust tiers and its history.' })

/** `POST /api/v1/agents` (201) and `PATCH /api/v1/agents/:wallet`. */
export const AgentAnswer = z.object({ agent: AgentJson })

/** `GET /api/v1/agents`. */
export const AgentPage = z
  .object({
    agents: z.array(AgentJson),
    total: z.number().int().describe('how many agents match, on every page'),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'AgentPage', description: 'A page of live agents, oldest first.' })

/** `DELETE /api/v1/agents/:wallet`. */
export const AgentRevoked = z.object({
  revoked: z.string().describe('the wallet revoked, EIP-55 checksummed'),
})

export const AgentMatch = z
  .object({
    wallet: z.string(),
    name: z.string(),
    description: z.string(),
    capabilities: z.array(z.string()),
    score: z.number().describe('relevance from 0 to 1, higher first; comparable within one search'),
  })
  .meta({ id: 'AgentMatch', description: 'A live agent a search found.' })

/** `GET /api/v1/agents/search`. */
export const AgentSearchAnswer = z.object({ agents: z.array(AgentMatch) })

/** `PUT /api/v1/agents/:wallet/trust-tier`. */
export const AgentTrustGrant = AgentTrustJson.extend({ wallet: z.string() }).meta({
  id: 'AgentTrustGrant',
  description: 'An agent’s trust tiers after an admin’s grant.',
})

export const ApiKeyJson = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    createdAt: z.string().describe('ISO 8601'),
    revokedAt: z.string().nullable().describe('ISO 8601; null while the key is live'),
  })
  .meta({ id: 'ApiKey', description: 'An API key as stored: never the key itself.' })

/** `POST /api/v1/keys` (201). */
export const ApiKeyMade = z
  .object({
    apiKey: ApiKeyJson,
    key: z.string().describe('the key: shown in this answer only'),
  })
  .meta({ id: 'ApiKeyMade', description: 'A new API key and the only copy of the key.' })

/** `GET /api/v1/keys`. */
export const ApiKeyList = z.object({ keys: z.array(ApiKeyJson) })

/** `DELETE /api/v1/keys/:id`. */
export const ApiKeyRevoked = z.object({
  revoked: z.string().describe('the id or name as the request gave it'),
})

/** `GET /api/v1/whoami`. */
export const ApiKeyWhoami = z
  .object({
    principal: z.object({
      kind: z.enum(['admin', 'key', 'anonymous']),
      id: z.string().describe('what ownership records: `admin`, `key:<id>` or `anonymous`'),
      name: z.string(),
      scopes: z.array(z.enum(SCOPES)).readonly(),
    }),
    readsArePublic: z.boolean().describe('whether every reader may read runs and conversations'),
  })
  .meta({ id: 'ApiKeyWhoami', description: 'Who the caller is and what it may do.' })

/** `GET /health`. */
export const Health = z
  .object({ status: z.literal('ok') })
  .meta({ id: 'Health', description: 'The process answers.' })

/** `GET /ready`. */
export const HealthReady = z
  .object({ status: z.literal('ready') })
  .meta({ id: 'HealthReady', description: 'The database, Redis and the data folder answer.' })

/** `GET /api/v1/runtime`. */
export const Runtime = z
  .object({
    address: z.string().describe('the address that signs this server’s run receipts'),
    source: z
      .enum(['BATON_RUNTIME_KEY', 'data-dir', 'database', 'memory'])
      .describe('where the signing key came from'),
    registry: z.string().describe('the registry id registrations here are signed for'),
  })
  .meta({ id: 'Runtime', description: 'The runtime’s signing address and registry id.' })

export const Tool = z
  .object({
    name: z.string().describe('what a card lists; MCP tools are `mcp__<server>__<tool>`'),
    source: z.enum(['builtin', 'module', 'mcp']),
    description: z.string(),
    inputSchema: z.unknown().optional().describe('JSON Schema of its input (module and MCP tools)'),
    server: z.string().optional().describe('the MCP server it comes from'),
    minTrustTier: TrustTier.optional().describe('agents below it do not get the tool (MCP)'),
    pricePerCallUsd: z.number().optional().describe('USD charged per call besides the call (MCP)'),
    grantedWhen: z.string().optional().describe('when the server grants a built-in tool'),
  })
  .meta({ id: 'Tool', description: 'A tool the server can grant an agent.' })

/** `GET /api/v1/tools`. */
export const ToolCatalogue = z
  .object({
    tools: z.array(Tool),
    unavailable: z
      .array(z.object({ server: z.string(), message: z.string() }))
      .describe('MCP servers that could not be reached, and why'),
  })
  .meta({ id: 'ToolCatalogue', description: 'Every tool the server can grant.' })

/** `GET /api/v1/models`. */
export const ModelCatalogue = z
  .object({
    providers: z.array(
      z.object({
        provider: z.string(),
        models: z.array(z.string()).describe('the `provider:model-id`s it knows prices for'),
      }),
    ),
  })
  .meta({ id: 'ModelCatalogue', description: 'The configured providers and their known models.' })
