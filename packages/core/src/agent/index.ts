export { AgentRunError } from './agent-errors'
export { BudgetCharger } from './budget-charger'
export {
  type BudgetMiddlewareOptions,
  budgetMiddleware,
  type CallCharge,
} from './budget-middleware'
export { buildSystemPrompt } from './build-system-prompt'
export { estimateInputTokens } from './estimate-input-tokens'
export { grantTools } from './grant-tools'
export { runAgent } from './run-agent'
export {
  type ToolCallError,
  type ToolCallEvent,
  type ToolCallReport,
  toolCallError,
} from './tool-call-event'
export type {
  AgentDelta,
  AgentRunResult,
  AgentStep,
  LanguageModelUsage,
  RunAgentOptions,
} from './types'
