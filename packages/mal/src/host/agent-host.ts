import type { Agent, AgentDelta, Budget, ToolCallEvent } from '@baton/core'
import type { ConclaveSpace } from '../conclave/conclave-types'
import type { Isolation, TaskWorkspaceKind } from '../plan'
import type { ToolBatchLimit } from '../run/tool-batches/tool-batch-limit'
import type { HostFile } from './collect-task-files'

/** What a `delegate` step asks of a host. */
export type HostDelegateRequest = {
  /** The registered agent (already checked with `ensureRegisteredAgent`). */
  agent: Agent
  prompt: string
  /** The step's budget: every call of the run is charged here, to the agent's wallet. */
  budget: Budget
  /** Aborted when the step runs out of budget or time, or the run is cancelled. */
  signal: AbortSignal
  /** The step's path in the plan, for logs. */
  path: string
  /** The plan's `maxDepth`: the agent is at depth 1, and may nest sub-agents down to this. */
  maxDepth?: number
  /** The plan's `maxToolBatches`: wrap the agent's tools with it (`wrapRegistry`) and follow its `signal`. */
  toolBatches?: ToolBatchLimit
  /**
   * The run's conclave (its store and the root run's keyspace). The default host gives the
   * agent, and every sub-agent under it, the conclave tools on it (`conclave_read`,
   * `conclave_write`, `conclave_list`, `conclave_delete`; writes attributed to the agent's
   * wallet), listed on the card it runs; an agent it calls over A2A gets none. A custom host
   * may ignore it.
   */
  conclave?: ConclaveSpace
  /**
   * Streams the agent's run: the default host hands it to `runAgent` (`onDelta`), for the
   * agent's own model calls (not its sub-agents'). A host that cannot stream (an agent called
   * over A2A) ignores it; the step's text is its result either way.
   */
  onDelta?: (delta: AgentDelta) => void
  /**
   * Called for each tool call of the agent's run, and of the sub-agents a `task` starts (the
   * event's `wallet` says whose): the run's `tool-call` / `tool-result` events. The default host
   * passes it to `runAgent`; a host that runs the agent elsewhere may ignore it.
   */
  onToolCall?: (event: ToolCallEvent) => void
}

/** What a `task` step asks of a host. */
export type HostTaskRequest = HostDelegateRequest & {
  /** Narrows the agent's own tools for this run. */
  tools?: string[]
  /** Overrides the agent card's persona. */
  persona?: string
  isolation: Isolation
  /** A workspace of this kind for the task (see `createDefaultHost`'s `workspaceProviders`). */
  workspace?: TaskWorkspaceKind
  /**
   * Given the screenshots a `browser` or `display` task took, once it has ended (done or not)
   * and before its directory goes; awaited. The default host reads them only when this is set.
   */
  onFiles?: (files: HostFile[]) => Promise<void>
}

export type HostResult = { text: string }

/** How `task` and `delegate` steps run an agent (default: `createDefaultHost`). */
export interface AgentHost {
  delegate(request: HostDelegateRequest): Promise<HostResult>
  task(request: HostTaskRequest): Promise<HostResult>
}
