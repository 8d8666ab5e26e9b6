import type {
  Agent,
  Budget,
  ModelRegistry,
  RunAgentOptions,
  ToolCallEvent,
  ToolRegistry,
} from '@baton/core'
import { WORKSPACE_TOOL_NAMES } from '@baton/subagents'
import type { ToolSet } from 'ai'
import type { ToolBatchLimit } from '../run/tool-batches/tool-batch-limit'

/**
 * Tools the runtime gives one agent for one run, beyond the registry's (e.g. MCP tools from
 * `@baton/core/mcp`'s `toolsFor`): already gated by the agent's card, charged to `budget`.
 */
export type AgentToolsProvider = (
  agent: Agent,
  context: { budget: Budget; workspaceDir?: string },
) => Promise<ToolSet> | ToolSet

/** What every agent run of the default host is given, whatever the step. */
export type HostRunOptions = {
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
  agentTools?: AgentToolsProvider
  /**
   * A tool a card lists that this run is not given (see core's `runAgent`); default
   * `contextGrantedTools`: a workspace's or the conclave's tools are left out where there is
   * none, any other missing tool is an error.
   */
  unprovidedTools?: 'throw' | 'skip' | readonly string[]
}

/**
 * The tools a run is given only in some places: a workspace's (files, browser, display), in
 * a `task` or a sub-agent, and the conclave's, in a run or swarm that has one. A card lists
 * them for where its agent works so; a `delegate` or swarm call elsewhere runs without them.
 */
export const contextGrantedTools: readonly string[] = [
  ...WORKSPACE_TOOL_NAMES,
  'conclave_read',
  'conclave_write',
  'conclave_list',
  'conclave_delete',
]

/**
 * The `runAgent` options of one agent run of a step: the host's models, its tool registry,
 * the tools the runtime grants (`extraTools`), the signal and the step's tool-call listener. With the plan's
 * `maxToolBatches`, every tool of the run is counted (a model step that calls tools is one
 * batch) and the run follows the limit's signal, so the batch past it ends the run with
 * TOOL_BATCHES_EXCEEDED before its tools run.
 *
 * @example
 * await runAgent(agent, prompt, agentRunOptions({ budget, host, extraTools, toolBatches, signal }))
 */
export function agentRunOptions(options: {
  budget: Budget
  host: HostRunOptions
  extraTools: ToolSet
  toolBatches: ToolBatchLimit | undefined
  signal: AbortSignal
  onToolCall?: ((event: ToolCallEvent) => void) | undefined
}): RunAgentOptions {
  const { host, extraTools, toolBatches: limit, signal } = options
  // Set field by field: a hop makes these options, and a spread per optional field cost more
  // than the rest of them.
  const run: RunAgentOptions = { budget: options.budget }
  if (host.models) run.models = host.models
  run.unprovidedTools = host.unprovidedTools ?? contextGrantedTools
  if (options.onToolCall) run.onToolCall = options.onToolCall
  if (!limit) {
    if (host.toolRegistry) run.toolRegistry = host.toolRegistry
    run.extraTools = extraTools
    run.signal = signal
    return run
  }
  const wrapped = limit.wrapRun({
    ...(host.toolRegistry ? { toolRegistry: host.toolRegistry } : {}),
    extraTools,
  })
  if (wrapped.toolRegistry) run.toolRegistry = wrapped.toolRegistry
  run.extraTools = wrapped.extraTools
  run.signal = AbortSignal.any([signal, limit.signal])
  return run
}
