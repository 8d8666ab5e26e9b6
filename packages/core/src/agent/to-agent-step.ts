import type { LoopStep } from './agent-loop'
import type { CallCharge } from './budget-middleware'
import type { AgentStep } from './types'

/**
 * One model call of a run as callers see it: text, tool calls, tool results (a failed tool
 * shows as `{ error }`), and what the call was charged.
 *
 * @example
 * const step = toAgentStep({ step, index: 0, charge: { inputTokens: 10, outputTokens: 5, tokens: 15, costUsd: 0.000003 } })
 */
export function toAgentStep(options: {
  step: LoopStep
  index: number
  charge: CallCharge | undefined
}): AgentStep {
  const { step, index, charge } = options
  return {
    index,
    text: step.text,
    toolCalls: step.outcomes.map(({ toolCallId, toolName, input }) => ({
      toolCallId,
      toolName,
      input,
    })),
    toolResults: step.outcomes.flatMap((outcome) => {
      const { toolCallId, toolName } = outcome
      if (outcome.error !== undefined) {
        return [{ toolCallId, toolName, output: { error: outcome.error } }]
      }
      if (outcome.modelOutput === undefined) return []
      return [{ toolCallId, toolName, output: outcome.output }]
    }),
    usage: {
      calls: charge ? 1 : 0,
      tokens: charge?.tokens ?? 0,
      costUsd: charge?.costUsd ?? 0,
    },
    finishReason: step.finishReason,
  }
}
