import type { Agent, Budget, ModelRegistry, ToolCallEvent, ToolRegistry } from '@baton/core'
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
 * await runAgent(agent, prompt, { budget, ...agentRunOptions({ host, extraTools, toolBatches, signal }) })
 */
export function agentRunOptions(options: {
  host: HostRunOptions
  extraTools: ToolSet
  toolBatches: ToolBatchLimit | undefined
  signal: AbortSignal
  onToolCall?: ((event: ToolCallEvent) => void) | undefined
}) {
  const { host, extraTools, toolBatches: limit, signal } = options
  const models = {
    ...(host.models ? { models: host.models } : {}),
    unprovidedTools: host.unprovidedTools ?? contextGrantedTools,
    ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
  }
  if (!limit) {
    return {
      ...models,
      ...(host.toolRegistry ? { toolRegistry: host.toolRegistry } : {}),
      extraTools,
      signal,
    }
  }
  return {
    ...models,
    ...limit.wrapRun({
      ...(host.toolRegistry ? { toolRegistry: host.toolRegistry } : {}),
      extraTools,
    }),
    signal: AbortSignal.any([signal, limit.signal]),
  }
}
