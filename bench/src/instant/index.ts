export { createInstantAgentsProvider, InstantAgentsModel } from './instant-agents-model'
export { createInstantChatModel, InstantChatModel } from './instant-chat-model'
export { createInstantLanguageModel, INSTANT_ANSWER } from './instant-language-model'
export { createInstantModels, INSTANT_MODEL_REF } from './instant-models'
