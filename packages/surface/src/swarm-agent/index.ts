export { InvalidSwarmIdError } from './invalid-swarm-id-error'
export {
  isSwarmAgentId,
  isValidSwarmId,
  SWARM_AGENT_ID_PREFIX,
  swarmAgentId,
  swarmIdFromAgentId,
} from './swarm-agent-id'
export { type SwarmToAgentOptions, swarmToAgent } from './swarm-to-agent'
export { swarmWallet } from './swarm-wallet'
