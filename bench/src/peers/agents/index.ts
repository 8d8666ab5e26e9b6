// OpenAI Agents JS's side of the bench. A subject imports it from a module of its own (see
// `lazySubject`), so no other subject's process loads the SDK.
export { createInstantAgentsProvider, InstantAgentsModel } from './instant-agents-model'
