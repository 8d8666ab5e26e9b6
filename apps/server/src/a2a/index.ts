export { a2aPlugin, createA2APlugin } from './a2a-plugin'
export {
  type A2ABusMessage,
  type A2AServices,
  a2aInbox,
  a2aServicesFrom,
  type HostedAgentAnswer,
  type HostedAgentRun,
  type ServerServicesForA2A,
} from './a2a-services'
export { A2A_TASK_TABLE, createA2ATaskStore } from './a2a-task-store'
export { type AskRemoteAgentOptions, askRemoteAgent } from './ask-remote-agent'
