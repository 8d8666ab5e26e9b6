export { AgentsUnavailableError } from './agents-unavailable-error'
export {
  type AgentSource,
  type AgentStore,
  type AgentStoreState,
  createAgentStore,
} from './create-agent-store'
export { type AgentListEndpoint, fetchAgentList } from './fetch-agent-list'
export { parseListedAgent } from './parse-listed-agent'
