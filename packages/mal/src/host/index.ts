export type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
export type { AgentToolsProvider } from './agent-run-options'
export { answerText, cardOutput } from './card-output'
export { type CreateDefaultHostOptions, createDefaultHost } from './create-default-host'
