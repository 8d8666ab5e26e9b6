import { type RunAgentOptions, runAgent } from '@baton/core'
import { signalIsBudgets } from './turn-signal'
import type { SubagentRunner } from './types'

/**
 * The default runner: each turn is one `runAgent` call of `@baton/core`, with the
 * sub-agent's budget, its tools (as `extraTools`, bound because the turn's card lists them,
 * and `toolContext`, through which they find the sub-agent) and the conversation so far.
 *
 * @example
 * const supervisor = createSupervisor({ agent, workspace, budget, runner: createAgentRunner() })
 */
export function createAgentRunner(): SubagentRunner {
  return {
    // runAgent touches the directory only through the file tools it is given.
    filesOnlyThroughTools: true,
    // runAgent hands `toolContext` to every tool call it makes.
    passesToolContext: true,
    async run(turn) {
      const options: RunAgentOptions = { budget: turn.budget, extraTools: turn.tools }
      // The budget's own signal is followed by runAgent anyway; asking for it would make it.
      if (!signalIsBudgets(turn)) options.signal = turn.signal
      if (turn.models) options.models = turn.models
      if (turn.toolRegistry) options.toolRegistry = turn.toolRegistry
      if (turn.toolContext !== undefined) options.toolContext = turn.toolContext
      const result = await runAgent(turn.agent, turn.messages, options)
      return { text: result.text, messages: result.messages }
    },
  }
}
