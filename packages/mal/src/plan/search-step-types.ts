/** `search_agents`: registered agents ranked by relevance, saved as `{ wallet, name, ... }[]`. */
export type SearchAgentsStep = {
  op: 'search_agents'
  saveAs: string
  query: string
  capability?: string
  type?: string
  trustTier?: 'safe' | 'low' | 'medium' | 'high' | 'critical'
  limit: number
}
/** `search_tools`: the tools a run can call, ranked by relevance. */
export type SearchToolsStep = { op: 'search_tools'; saveAs: string; query: string; limit: number }
/** `search_models`: models by capability, provider and price (and relevance to `query`). */
export type SearchModelsStep = {
  op: 'search_models'
  saveAs: string
  query?: string
  capability?: string
  provider?: string
  maxOutputPerMTok?: number
  limit: number
}
export type SearchStep = SearchAgentsStep | SearchToolsStep | SearchModelsStep
