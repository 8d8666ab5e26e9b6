// Baton's instant model. The peers' own instant models are in `peers/`: importing this does
// not load LangGraph.js or OpenAI Agents JS.
export {
  createInstantLanguageModel,
  INSTANT_ANSWER,
  INSTANT_MODEL_REF,
} from '@baton/testing/instant-models'
export { createInstantModels } from './instant-models'
