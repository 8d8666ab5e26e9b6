import { type AgentRunResult, type RunAgentOptions, runAgent } from '@baton/core'
import { signalIsBudgets } from './turn-signal'
import type { SubagentRunner, SubagentTurnResult } from './types'

const turnResultOf = (result: AgentRunResult): SubagentTurnResult => ({
  text: result.text,
  messages: result.messages,
})

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
    // Not async: a turn in progress then holds runAgent's suspended frames only, not one more
    // of its own (its generator, registers and promise: ~300 bytes for each sub-agent running).
    run(turn) {
      const options: RunAgentOptions = { budget: turn.budget, extraTools: turn.tools }
      // The budget's own signal is followed by runAgent anyway; asking for it would make it.
      if (!signalIsBudgets(turn)) options.signal = turn.signal
      if (turn.models) options.models = turn.models
      if (turn.toolRegistry) options.toolRegistry = turn.toolRegistry
      if (turn.toolContext !== undefined) options.toolContext = turn.toolContext
      try {
        return runAgent(turn.agent, turn.messages, options).then(turnResultOf)
      } catch (error) {
        // A rejection, as from an async `run`, whatever throws.
        return Promise.reject(error)
      }
    },
  }
}
