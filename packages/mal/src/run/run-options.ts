import type {
  Budget,
  MemoryStore,
  ModelRegistry,
  ReceiptSigner,
  RegistryClient,
  RunReceipt,
  ToolRegistry,
} from '@baton/core'
import type { WorkspaceProvider } from '@baton/subagents'
import type { ConclaveStore } from '../conclave'
import type { Discovery } from '../discovery'
import type { AgentHost } from '../host'
import type { ResumeStore } from './resume-store'
import type { RunErrorInfo, RunEvent, RunStatus, RunUsage } from './run-event'
import type { RunFileStore } from './run-files'
import type { RunState } from './run-state'
import type { RunSecret } from './seal-state'

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
  /**
   * Called with every event, in order, as it happens; the live-only `step-delta` events (a
   * step's streamed text) included.
   */
  onEvent?: (event: RunEvent) => void
  /**
   * `task`, `delegate`, `models_call` and `synthesize` steps stream their model's text as
   * `step-delta` events (default true). `false` makes each call whole (`doGenerate`); so does
   * a run nobody listens to (no `onEvent`, and `run.events` not asked for when a step starts).
   */
  stepDeltas?: boolean
  /** Resolves `provider:model-id` (default: the built-in providers from the environment). */
  models?: ModelRegistry
  /** Tools `tool` steps (and agents' cards) may name. */
  toolRegistry?: ToolRegistry
  /**
   * The shared state of the run (and of the agents under it): `store` (default: one in this
   * process's memory), `space` (default: the run's id; a sub-run passes its root's), and how
   * long it outlives the run (`retainMs`, default 0: dropped when the run ends unpaused).
   */
  conclave?: { store?: ConclaveStore; space?: string; retainMs?: number }
  /** How `search_agents`, `search_tools` and `search_models` look things up (see createStaticDiscovery). */
  discovery?: Discovery
  /** Tools only `tool` steps may call, looked up before `toolRegistry`. */
  tools?: Record<string, PlanTool>
  /** Where `task` workspaces are made (default: a temporary directory per task). */
  workspaceRoot?: string
  /**
   * Providers of the workspace kinds a `task` may ask for (`workspace: browser | display`),
   * used by the default host (see `createDefaultHost`).
   */
  workspaceProviders?: Record<string, WorkspaceProvider>
  /**
   * Keeps the screenshots `browser` and `display` tasks take (each announced by a `step-file`
   * event once saved); without it they go with the task's directory.
   */
  files?: RunFileStore
  /** The agents' own memory. */
  memory?: MemoryStore
  /** Who `models_call`, `synthesize` and `tool` spend is attributed to (default `'coordinator'`). */
  coordinatorWallet?: string
  /** The model `synthesize` uses when its step names none (default `'offline:default'`). */
  model?: string
  /** Names the run in its events (default: a random UUID). */
  runId?: string
  /**
   * Awaited after each top-level step has finished (its value saved, its events emitted) and
   * before the next one starts, with the state `resumeRun` continues from at the next step.
   * If it throws, the run fails with `CHECKPOINT_FAILED` before the next step starts.
   */
  onCheckpoint?: (checkpoint: RunState) => Promise<void> | void
  /** Seals every state the run gives out (HMAC-SHA256); `resumeRun` then refuses one that was changed. */
  secret?: RunSecret
  /**
   * How many steps the run may execute in all, nested ones (every loop iteration's) and those
   * before a pause or checkpoint included (default 50 000). Past it the run fails with
   * `STEP_LIMIT_EXCEEDED`; a plan whose worst case is past it is refused before it starts.
   */
  maxRunSteps?: number
  /**
   * Awaited (when it gives a promise) before every step starts, nested ones included: a brake
   * for a consumer of `onEvent` that falls behind. If it throws, the run fails with that error
   * at that step (a server stopping a run at its next step boundary, say).
   */
  beforeStep?: () => Promise<void> | void
  /** How many events `result.events` keeps: the `run-start` and the latest (default 1000). */
  maxEvents?: number
  /** How many unread events `run.events` holds before the run waits for its reader (default 256). */
  eventBuffer?: number
  /** The runtime's key: signs the run's receipt (EIP-712) when the plan or `requireReceipt` asks for one. */
  receiptSigner?: ReceiptSigner
  /** Every run gets a signed receipt, whatever its plan says (needs `receiptSigner`). */
  requireReceipt?: boolean
}

export type ResumeRunOptions = Omit<RunPlanOptions, 'inputs' | 'runId'> & {
  /**
   * Records resumed states so each is resumed at most once (default: one store for this
   * process). A server that resumes in several processes passes one backed by its database.
   */
  resumed?: ResumeStore
  /** The answer to a paused run's `ask_user` (the `resumeRun(plan, state, options)` form). */
  answer?: unknown
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
  /** The `run-start` and the latest events, at most `maxEvents` (the full stream is `onEvent`'s and `run.events`'). */
  events: RunEvent[]
  /** How many events `events` left out (only when it did). */
  eventsDropped?: number
  /** When `status` is `paused`: the JSON state `resumeRun` continues from (sealed when a `secret` was given). */
  state?: RunState
  /** When `status` is `paused`: what the run asks. */
  question?: string
  /** When `status` is `failed` or `cancelled`. */
  error?: RunErrorInfo
  /** The signed receipt of the run, when one was required (see `verifyRunReceipt` in core). */
  receipt?: RunReceipt
}
