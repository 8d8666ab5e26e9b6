import { type ModelRegistry, runAgent, type ToolRegistry } from '@baton/core'
import { jsonSchema, Output } from 'ai'
import type { RunMember } from './types'

/**
 * The member call every swarm uses unless given another: the member agent runs with core's
 * `runAgent`, on its card's model and persona, charged to the call's budget and attributed to
 * its wallet. A structured request (a vote) is passed to `runAgent` as structured output (the
 * model is asked for JSON of that schema), and the answer is that JSON.
 *
 * @example
 * const runMember = createDefaultRunMember({ models: createModelRegistry() })
 * await runSwarm(swarm, 'Plan the launch', { agents, runMember })
 */
export function createDefaultRunMember(
  options: { models?: ModelRegistry; toolRegistry?: ToolRegistry } = {},
): RunMember {
  return async (member, prompt, call) => {
    const output = call.structured
      ? Output.object({ schema: jsonSchema(call.structured.schema), name: call.structured.name })
      : undefined
    const result = await runAgent(member.agent, prompt, {
      budget: call.budget,
      signal: call.signal,
      ...(options.models ? { models: options.models } : {}),
      ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
      ...(output ? { output } : {}),
    })
    const text = output && result.output !== undefined ? JSON.stringify(result.output) : result.text
    return { text, usage: result.usage }
  }
}
