import { type AgentDelta, type ModelRegistry, runAgent, type ToolRegistry } from '@baton/core'
import { jsonSchema, Output, type ToolSet } from 'ai'
import { createConclaveTools } from '../conclave/create-conclave-tools'
import { withGrantedTools } from '../granted-tools'
import { contextGrantedTools } from '../host/agent-run-options'
import type { RunMember } from './types'

// The member's text as the model writes it; reasoning and tool calls are not its answer.
function streamText(onText: (text: string) => void) {
  return (delta: AgentDelta) => {
    if (delta.type === 'text-delta') onText(delta.text)
  }
}

/**
 * The member call every swarm uses unless given another: the member agent runs with core's
 * `runAgent`, on its card's model and persona, charged to the call's budget and attributed to
 * its wallet. A streamed call (`onText`) runs on the model's `doStream`. A structured request (a vote) is passed to `runAgent` as structured output (the
 * model is asked for JSON of that schema), and the answer is that JSON. In a swarm that shares
 * its conclave, the member gets the conclave tools (`conclave_read`, `conclave_write`, ...,
 * listed on its card), its writes attributed to its wallet.
 *
 * @example
 * const runMember = createDefaultRunMember({ models: createModelRegistry() })
 * await runSwarm(swarm, 'Plan the launch', { agents, runMember })
 */
export function createDefaultRunMember(
  options: {
    models?: ModelRegistry
    toolRegistry?: ToolRegistry
    /** A tool a member's card lists that its call is not given (default `contextGrantedTools`). */
    unprovidedTools?: 'throw' | 'skip' | readonly string[]
  } = {},
): RunMember {
  return async (member, prompt, call) => {
    const output = call.structured
      ? Output.object({ schema: jsonSchema(call.structured.schema), name: call.structured.name })
      : undefined
    const extraTools: ToolSet = call.conclave
      ? createConclaveTools({ ...call.conclave, wallet: member.agent.wallet })
      : {}
    const result = await runAgent(withGrantedTools(member.agent, Object.keys(extraTools)), prompt, {
      budget: call.budget,
      extraTools,
      signal: call.signal,
      ...(options.models ? { models: options.models } : {}),
      ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
      unprovidedTools: options.unprovidedTools ?? contextGrantedTools,
      ...(output ? { output } : {}),
      ...(call.onText ? { onDelta: streamText(call.onText) } : {}),
    })
    const text = output && result.output !== undefined ? JSON.stringify(result.output) : result.text
    return { text, usage: result.usage }
  }
}
