export { createAskCallerTool } from './ask-caller-tool'
export { createDelegationTools } from './create-delegation-tools'
export { createSupervisor } from './create-supervisor'
export { type RunTaskOptions, runTask } from './run-task'
export { SubagentToolContextError } from './shared-turn-tools'
export {
  MaxDepthExceededError,
  ModelProviderMismatchError,
  SubagentUnavailableError,
  UnknownSubagentError,
} from './supervisor-errors'
export type {
  CreateSupervisorOptions,
  DelegateOptions,
  SubagentReport,
  SubagentStatus,
  SubagentTreeNode,
  Supervisor,
  SupervisorEventName,
  SupervisorEvents,
} from './types'
