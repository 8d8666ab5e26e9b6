export { echoCard } from './echo-card'
export { createEchoExecutor, type EchoExecutor, type EchoExecutorOptions } from './echo-executor'
export { type EchoAgent, type EchoAgentOptions, startEchoAgent } from './start-echo-agent'
export { textArtifactUpdate } from './text-artifact-update'
