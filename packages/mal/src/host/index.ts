export type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
export { type AgentToolsProvider, contextGrantedTools } from './agent-run-options'
export { answerText, cardOutput } from './card-output'
export {
  collectTaskFiles,
  type HostFile,
  MAX_TASK_FILE_BYTES,
  MAX_TASK_FILES,
} from './collect-task-files'
export { type CreateDefaultHostOptions, createDefaultHost } from './create-default-host'
