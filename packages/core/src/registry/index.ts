export {
  type CreateRegistryClientOptions,
  createRegistryClient,
  type HttpRegistryClient,
} from './create-registry-client'
export { createStaticRegistry } from './create-static-registry'
export type { EnsureRegisteredAgentOptions, RegistryClient } from './registry-client'
export { RegistryUnavailableError } from './registry-unavailable-error'
export { UnregisteredAgentError } from './unregistered-agent-error'
