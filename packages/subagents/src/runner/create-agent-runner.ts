import { runAgent } from '@baton/core'
import type { SubagentRunner } from './types'

/**
 * The default runner: each turn is one `runAgent` call of `@baton/core`, with the
 * sub-agent's budget, its tools (as `extraTools`, bound because the turn's card lists them)
 * and the conversation so far.
 *
 * @example
 * const supervisor = createSupervisor({ agent, workspace, budget, runner: createAgentRunner() })
 */
export function createAgentRunner(): SubagentRunner {
  return {
    // runAgent touches the directory only through the file tools it is given.
    filesOnlyThroughTools: true,
    async run(turn) {
      const result = await runAgent(turn.agent, turn.messages, {
        budget: turn.budget,
        signal: turn.signal,
        extraTools: turn.tools,
        ...(turn.models ? { models: turn.models } : {}),
        ...(turn.toolRegistry ? { toolRegistry: turn.toolRegistry } : {}),
      })
      return { text: result.text, messages: result.messages }
    },
  }
}
