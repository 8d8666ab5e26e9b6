export { adapterEnvironment } from './adapter-environment'
export {
  AdapterProcessError,
  AdapterUnavailableError,
  UnknownAdapterError,
  UnsafeAdapterArgumentsError,
} from './adapter-errors'
export { builtInAdapters } from './built-in-adapters'
export { checkAdapterArguments } from './check-adapter-arguments'
export { claudeCodeAdapter, parseClaudeCodeLine } from './claude-code-adapter'
export { codexAdapter, parseCodexLine } from './codex-adapter'
export { type AdaptersOption, enabledAdapters } from './enabled-adapters'
export { findExecutable } from './find-executable'
export { parseBatonLine } from './parse-baton-line'
export { resolveAdapter } from './resolve-adapter'
export {
  type AdapterOutcome,
  type AdapterProcess,
  type StartAdapterProcessOptions,
  startAdapterProcess,
} from './start-adapter-process'
export {
  AdapterEvent,
  type AdapterTurnContext,
  type AgentAdapter,
  AgentAdapterSchema,
} from './types'
