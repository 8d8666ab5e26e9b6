// LangGraph.js's side of the bench. A subject imports it from a module of its own (see
// `lazySubject`), so no other subject's process loads LangGraph.
export { createInstantChatModel, InstantChatModel } from './instant-chat-model'
export { createLooseGraph, type GraphState, type LooseGraph } from './loose-graph'
