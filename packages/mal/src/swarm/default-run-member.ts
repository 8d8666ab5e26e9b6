import type { ModelRegistry, ToolRegistry } from '@baton/core'
import * as core from '@baton/core'
import type { RunMember } from './types'

/**
 * The member call every swarm uses unless given another: the member agent runs with core's
 * `runAgent`, on its card's model and persona, charged to the call's budget and attributed to
 * its wallet. A structured request is asked for in the prompt and read back from the text.
 *
 * @example
 * const runMember = createDefaultRunMember({ models: createModelRegistry() })
 */
export function createDefaultRunMember(
  options: { models?: ModelRegistry; toolRegistry?: ToolRegistry } = {},
): RunMember {
  return async (member, prompt, call) => {
    const runAgent = (core as unknown as { runAgent?: RunAgent }).runAgent
    if (!runAgent) throw new Error('runAgent is not available in this version of @baton/core')
    const result = await runAgent(member.agent, prompt, {
      budget: call.budget,
      signal: call.signal,
      ...(options.models ? { models: options.models } : {}),
      ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
    })
    return { text: result.text, usage: result.usage }
  }
}

type RunAgent = (
  agent: core.Agent,
  input: string,
  options: {
    budget: core.Budget
    signal?: AbortSignal
    models?: ModelRegistry
    toolRegistry?: ToolRegistry
  },
) => Promise<{ text: string; usage: { calls: number; tokens: number; costUsd: number } }>
