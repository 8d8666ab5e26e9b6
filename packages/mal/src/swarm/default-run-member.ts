import { type ModelRegistry, runAgent, type ToolRegistry } from '@baton/core'
import type { RunMember } from './types'

/**
 * The member call every swarm uses unless given another: the member agent runs with core's
 * `runAgent`, on its card's model and persona, charged to the call's budget and attributed to
 * its wallet. `runAgent` has no structured-output mode, so a structured request (a vote) is
 * asked for in the prompt and read back from the text.
 *
 * @example
 * const runMember = createDefaultRunMember({ models: createModelRegistry() })
 * await runSwarm(swarm, 'Plan the launch', { agents, runMember })
 */
export function createDefaultRunMember(
  options: { models?: ModelRegistry; toolRegistry?: ToolRegistry } = {},
): RunMember {
  return async (member, prompt, call) => {
    const result = await runAgent(member.agent, prompt, {
      budget: call.budget,
      signal: call.signal,
      ...(options.models ? { models: options.models } : {}),
      ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
    })
    return { text: result.text, usage: result.usage }
  }
}
