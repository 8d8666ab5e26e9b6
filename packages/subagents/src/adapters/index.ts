export {
  AdapterProcessError,
  AdapterUnavailableError,
  UnknownAdapterError,
} from './adapter-errors'
export { builtInAdapters } from './built-in-adapters'
export { claudeCodeAdapter, parseClaudeCodeLine } from './claude-code-adapter'
export { codexAdapter, parseCodexLine } from './codex-adapter'
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
