import { type AgentStep, runAgent } from '@baton/core'
import type { ModelMessage } from 'ai'
import type { SubagentRunner } from './types'

/**
 * The default runner: each turn is one `runAgent` call of `@baton/core`, with the
 * sub-agent's budget, tools (as `extraTools`) and the conversation so far.
 *
 * @example
 * const supervisor = createSupervisor({ agent, workspace, budget, runner: createAgentRunner() })
 */
export function createAgentRunner(): SubagentRunner {
  return {
    async run(turn) {
      const result = await runAgent(turn.agent, turn.messages, {
        budget: turn.budget,
        signal: turn.signal,
        extraTools: turn.tools,
        ...(turn.models ? { models: turn.models } : {}),
        ...(turn.toolRegistry ? { toolRegistry: turn.toolRegistry } : {}),
      })
      const messages = (result as { messages?: ModelMessage[] }).messages
      return { text: result.text, messages: messages ?? messagesOf(result.steps, result.text) }
    },
  }
}

/** The turn's conversation rebuilt from its steps, for runs that do not return messages. */
function messagesOf(steps: AgentStep[], text: string): ModelMessage[] {
  if (steps.length === 0) return [{ role: 'assistant', content: text }]
  return steps.flatMap((step): ModelMessage[] => [
    {
      role: 'assistant',
      content: [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...step.toolCalls.map((call) => ({ type: 'tool-call' as const, ...call })),
      ],
    },
    ...(step.toolResults.length > 0
      ? [
          {
            role: 'tool' as const,
            content: step.toolResults.map((result) => ({
              type: 'tool-result' as const,
              toolCallId: result.toolCallId,
              toolName: result.toolName,
              output: { type: 'json' as const, value: (result.output ?? null) as never },
            })),
          },
        ]
      : []),
  ])
}
