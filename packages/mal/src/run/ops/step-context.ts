import type {
  Budget,
  ModelRegistry,
  RegistryClient,
  ToolCallEvent,
  ToolRegistry,
} from '@baton/core'
import type { ConclaveStore } from '../../conclave'
import type { Discovery } from '../../discovery'
import type { AgentHost, HostFile } from '../../host'
import type { TemplateScope } from '../../template'
import type { RunFileStore } from '../run-files'
import type { PlanTool } from '../run-options'
import type { ToolBatchLimit } from '../tool-batches/tool-batch-limit'

/** What every step of a run can reach. */
export type RunServices = {
  registry: RegistryClient
  host: AgentHost
  models: () => ModelRegistry
  toolRegistry?: ToolRegistry
  tools: Record<string, PlanTool>
  coordinatorWallet: string
  model: string
  scratch: Record<string, unknown>
  /** How `search_*` steps find agents, tools and models. */
  discovery?: Discovery
  /** The plan's `maxDepth`, if it sets one. */
  maxDepth?: number
  /** The plan's `maxToolBatches`, counted for the whole run. */
  toolBatches?: ToolBatchLimit
  /** The shared state of the run's tree: the store and the root run's keyspace. */
  conclave: { store: ConclaveStore; space: string }
  /** Where the run keeps its tasks' screenshots, if anywhere. */
  files?: { runId: string; store: RunFileStore }
}

/** One step's view of the run: its path, its own budget and the values in scope. */
export type StepContext<S> = {
  step: S
  path: string
  budget: Budget
  scope: TemplateScope
  services: RunServices
  /** Where a model or agent step streams its text as it comes (absent: it is not streamed). */
  onText?: (text: string) => void
  /** Hears of each tool call of the agents the step runs (`task` and `delegate`). */
  onToolCall?: (event: ToolCallEvent) => void
  /** Keeps the screenshots a `task` took (absent: they are not kept). */
  onFiles?: (files: HostFile[], wallet: string) => Promise<void>
}

/** A finished leaf step: its value and the wallet that did the work. */
export type StepOutcome = { value: unknown; wallet: string }
