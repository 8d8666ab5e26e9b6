import type { SubagentRunner } from '@baton/subagents'

/**
 * A runner that plays the instant model without `runAgent`: it calls the tools itself, so a
 * benchmark of it measures the supervisor alone (no model loop, no tool schemas).
 */
export function createInstantRunner(): SubagentRunner {
  return {
    filesOnlyThroughTools: true,
    async run(turn) {
      const last = turn.messages.at(-1)
      const text = typeof last?.content === 'string' ? last.content : ''
      const depth = Number(/nest:(\d+)/.exec(text)?.[1] ?? 0)
      if (depth > 0) {
        const context = { toolCallId: 'call', messages: [], abortSignal: turn.signal }
        await turn.tools.delegate_agent?.execute?.({ task: `nest:${depth - 1}` }, context)
        await turn.tools.wait_agents?.execute?.({}, context)
      }
      return { text: 'ok', messages: [] }
    },
  }
}
