export type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
export { type CreateDefaultHostOptions, createDefaultHost } from './create-default-host'
