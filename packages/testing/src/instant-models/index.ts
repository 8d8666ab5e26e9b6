export {
  createInstantLanguageModel,
  INSTANT_ANSWER,
  type InstantModelOptions,
} from './create-instant-language-model'
export {
  INSTANT_MODEL_REF,
  INSTANT_PRICES,
  instantModelRegistry,
  instantRegistryOptions,
} from './instant-registry'
