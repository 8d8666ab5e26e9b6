export { applySwarmEvent, type SwarmRunState } from './apply-swarm-event'
export {
  type AdvancedAgentStore,
  type AdvancedAgentStoreState,
  type CreateAdvancedAgentStoreOptions,
  createAdvancedAgentStore,
  type SwarmSource,
} from './create-advanced-agent-store'
export { parseSwarmList } from './parse-swarm-list'
export {
  SwarmRunFailedError,
  SwarmRunnerMissingError,
  SwarmRunStartError,
  SwarmsUnavailableError,
  UnknownSwarmError,
} from './swarm-run-errors'
export { type WaitForSwarmRunOptions, waitForSwarmRun } from './wait-for-swarm-run'
