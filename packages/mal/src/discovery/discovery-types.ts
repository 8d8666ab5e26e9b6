import type { EnsureRegisteredAgentOptions } from '@baton/core'

/** The trust tiers of the seed systems, lowest first (a minimum tier admits those above it). */
export const TRUST_TIERS = ['safe', 'low', 'medium', 'high', 'critical'] as const
export type TrustTierName = (typeof TRUST_TIERS)[number]

export type AgentQuery = {
  /** Free text, matched against name, description, capabilities and examples. */
  query: string
  /** Only agents whose card lists this capability. */
  capability?: string
  /** Only agents of this type (`specialist`, `reviewer`, ...). */
  type?: string
  /** Only agents at this trust tier or above. */
  trustTier?: TrustTierName
  /** At most this many (1 to 50). */
  limit: number
}

/** One registered agent a search found, most relevant first. */
export type AgentMatch = {
  wallet: string
  name: string
  description: string
  capabilities: string[]
  /** Relevance: higher is better; comparable within one result, not across look-ups. */
  score: number
}

export type ToolQuery = { query: string; limit: number }
export type ToolMatch = { name: string; description: string; score: number }

export type ModelQuery = {
  query?: string
  capability?: string
  provider?: string
  /** Only models whose output price (USD per million tokens) is at most this. */
  maxOutputPerMTok?: number
  limit: number
}
export type ModelMatch = {
  model: string
  provider: string
  capabilities: string[]
  price: { inputPerMTok: number; outputPerMTok: number }
  score: number
}

export type SearchOptions = Pick<EnsureRegisteredAgentOptions, 'signal'>

/**
 * How a run finds agents, tools and models (an interface of the run, like the registry).
 * Each method is optional: a run without `searchTools` / `searchModels` searches its own
 * tools and its model registry's price table; one without `searchAgents` refuses
 * `search_agents` with `DISCOVERY_UNAVAILABLE`.
 */
export interface Discovery {
  searchAgents?(query: AgentQuery, options?: SearchOptions): Promise<AgentMatch[]>
  searchTools?(query: ToolQuery, options?: SearchOptions): Promise<ToolMatch[]>
  searchModels?(query: ModelQuery, options?: SearchOptions): Promise<ModelMatch[]>
}
