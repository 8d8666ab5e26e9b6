import type { StepResult, ToolSet } from 'ai'
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
  step: StepResult<ToolSet>
  index: number
  charge: CallCharge | undefined
}): AgentStep {
  const { step, index, charge } = options
  return {
    index,
    text: step.text,
    toolCalls: step.toolCalls.map(({ toolCallId, toolName, input }) => ({
      toolCallId,
      toolName,
      input,
    })),
    toolResults: step.content.flatMap((part) => {
      if (part.type === 'tool-result') {
        return [{ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output }]
      }
      if (part.type === 'tool-error') {
        const message = part.error instanceof Error ? part.error.message : String(part.error)
        return [
          { toolCallId: part.toolCallId, toolName: part.toolName, output: { error: message } },
        ]
      }
      return []
    }),
    usage: {
      calls: charge ? 1 : 0,
      tokens: charge?.tokens ?? 0,
      costUsd: charge?.costUsd ?? 0,
    },
    finishReason: step.finishReason,
  }
}
