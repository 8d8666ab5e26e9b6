export type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
export { answerText, cardOutput } from './card-output'
export { type CreateDefaultHostOptions, createDefaultHost } from './create-default-host'
