export {
  createInstantLanguageModel,
  INSTANT_ANSWER,
  INSTANT_MODEL_REF,
} from '@baton/testing/instant-models'
export { createInstantAgentsProvider, InstantAgentsModel } from './instant-agents-model'
export { createInstantChatModel, InstantChatModel } from './instant-chat-model'
export { createInstantModels } from './instant-models'
