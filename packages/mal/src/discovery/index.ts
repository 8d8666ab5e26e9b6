export { createHttpDiscovery } from './create-http-discovery'
export { createStaticDiscovery, type StaticDiscoveryOptions } from './create-static-discovery'
export { DiscoveryUnavailableError } from './discovery-errors'
export {
  type AgentMatch,
  type AgentQuery,
  type Discovery,
  type ModelMatch,
  type ModelQuery,
  type SearchOptions,
  type ToolMatch,
  type ToolQuery,
  TRUST_TIERS,
  type TrustTierName,
} from './discovery-types'
export { type CatalogModel, catalogFor, defaultModelCatalog } from './model-catalog'
export { scoreText, termsOf, type WeightedField } from './score-text'
export { meetsTrustTier, searchAgentList } from './search-agent-list'
export { type ModelCatalogSource, searchModelCatalog } from './search-model-catalog'
export { searchToolSet } from './search-tool-set'
