export { createAgentRunner } from './create-agent-runner'
export type { SubagentRunner, SubagentTurn, SubagentTurnResult } from './types'
