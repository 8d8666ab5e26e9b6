import type { ModelRegistry, ToolRegistry } from '@baton/core'
import type { ToolBatchLimit } from '../run/tool-batches/tool-batch-limit'

/** What every agent run of the default host is given, whatever the step. */
export type HostRunOptions = { models?: ModelRegistry; toolRegistry?: ToolRegistry }

/**
 * The `runAgent` options of one agent run of a step: the host's models and tool registry, and
 * the signal. With the plan's `maxToolBatches`, the agent's tools are counted and the run
 * follows the limit's signal, so the batch past it ends the run with TOOL_BATCHES_EXCEEDED.
 *
 * @example
 * await runAgent(agent, prompt, { budget, ...agentRunOptions({ host, toolBatches, signal }) })
 */
export function agentRunOptions(options: {
  host: HostRunOptions
  toolBatches: ToolBatchLimit | undefined
  signal: AbortSignal
}) {
  const { host, toolBatches: limit, signal } = options
  return {
    ...(host.models ? { models: host.models } : {}),
    ...(host.toolRegistry
      ? { toolRegistry: limit ? limit.wrapRegistry(host.toolRegistry) : host.toolRegistry }
      : {}),
    signal: limit ? AbortSignal.any([signal, limit.signal]) : signal,
  }
}
