export {
  A2A_JSON_RPC_BINDING,
  A2A_PROTOCOL_VERSION,
  type A2AAgentCard,
  type A2AAgentInterface,
  type A2AAgentSkill,
  type A2ASecurityScheme,
} from './a2a-agent-card'
export { type A2AAgentCardFields, fromA2AAgentCard } from './from-a2a-agent-card'
export { type ToA2AAgentCardOptions, toA2AAgentCard } from './to-a2a-agent-card'
