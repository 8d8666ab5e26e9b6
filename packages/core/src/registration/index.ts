export { canonicalJson } from './canonical-json'
export {
  maxRegistrationLifetimeSeconds,
  type RegistrationAction,
  type RegistrationMessage,
  type RegistryId,
  registrationContentHash,
  registrationDomain,
  registrationTypedData,
  registrationTypes,
} from './registration-typed-data'
export {
  type AgentChangeBody,
  type AgentRegistrationBody,
  type SignedProof,
  type SignOptions,
  signAgentChange,
  signAgentRegistration,
} from './sign-agent-registration'
