import type { Budget, MemoryStore, ModelRegistry, RegistryClient, ToolRegistry } from '@baton/core'
import type { AgentHost } from '../host'
import type { RunErrorInfo, RunEvent, RunStatus, RunUsage } from './run-event'
import type { RunState } from './run-state'

/** An AI SDK tool, as core's tool registry holds them. */
export type PlanTool = NonNullable<ReturnType<ToolRegistry['get']>>

export type RunPlanOptions = {
  /** Values for the plan's declared inputs. */
  inputs?: Record<string, unknown>
  /** Vouches for every agent a `task` or `delegate` addresses (fails closed). */
  registry: RegistryClient
  /** How `task` and `delegate` run an agent (default: in-process `runAgent`, A2A for remote agents). */
  host?: AgentHost
  /** The caller's budget; the plan's budget is carved from it (capped by what it has left). */
  budget?: Budget
  /** Aborting it cancels the run: the step in flight and everything it started. */
  signal?: AbortSignal
  /** Called with every event, in order, as it happens. */
  onEvent?: (event: RunEvent) => void
  /** Resolves `provider:model-id` (default: the built-in providers from the environment). */
  models?: ModelRegistry
  /** Tools `tool` steps (and agents' cards) may name. */
  toolRegistry?: ToolRegistry
  /** Tools only `tool` steps may call, looked up before `toolRegistry`. */
  tools?: Record<string, PlanTool>
  /** Where `task` workspaces are made (default: a temporary directory per task). */
  workspaceRoot?: string
  /** The agents' own memory. */
  memory?: MemoryStore
  /** Who `models_call`, `synthesize` and `tool` spend is attributed to (default `'coordinator'`). */
  coordinatorWallet?: string
  /** The model `synthesize` uses when its step names none (default `'offline:default'`). */
  model?: string
  /** Names the run in its events (default: a random UUID). */
  runId?: string
}

export type RunResult = {
  runId: string
  status: RunStatus
  /** The `stop` step's output (or `null` when the run ended without one). */
  output: unknown
  /** Why a `stop` with a reason ended the run. */
  reason?: string
  /** Every value saved by a step, by `saveAs`. */
  values: Record<string, unknown>
  usage: RunUsage
  usageByWallet: Record<string, RunUsage>
  events: RunEvent[]
  /** When `status` is `paused`: the JSON state `resumeRun` continues from. */
  state?: RunState
  /** When `status` is `paused`: what the run asks. */
  question?: string
  /** When `status` is `failed` or `cancelled`. */
  error?: RunErrorInfo
}
