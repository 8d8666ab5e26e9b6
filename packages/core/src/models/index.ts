export { type CreateModelRegistryOptions, createModelRegistry } from './create-model-registry'
export { defaultModelRegistry } from './default-model-registry'
export {
  ModelAuthError,
  ModelRateLimitedError,
  ModelUnavailableError,
  OfflineModelError,
  ProviderNotConfiguredError,
  UnknownProviderError,
} from './model-errors'
export {
  createOfflineModel,
  type Directives,
  memoryMessageOptions,
  parseDirectives,
  type ToolDirective,
} from './offline'
export { defaultPriceTable, findPrice, priceUsage } from './price-table'
export type { ModelPrice, ModelProvider, ModelRegistry, PriceTable } from './types'
