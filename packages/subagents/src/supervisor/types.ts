import type { Agent, Budget, BudgetInput, ModelRegistry, ToolRegistry } from '@baton/core'
import type { ToolSet } from 'ai'
import type { AdaptersOption } from '../adapters/enabled-adapters'
import type { SubagentRunner } from '../runner/types'
import type { Workspace, WorkspaceProvider, WorkspaceSpec } from '../workspace/types'

export type SubagentStatus =
  | 'running'
  | 'done'
  | 'asking'
  | 'failed'
  | 'cancelled'
  | 'budget-exhausted'
  | 'timed-out'

export type DelegateOptions = {
  /** `'new'` (default): a directory of its own; `'share'`: the caller's; or a provider's kind. */
  workspace?: 'new' | 'share' | (string & {})
  /** Carved from the caller's budget (default: all that is left). */
  budget?: BudgetInput
  /** Another model of the caller's provider (default: the caller's model). */
  model?: string
  /** An external agent (`'claude-code'`, `'codex'`, or a configured adapter) instead of a model. */
  agent?: string
  /**
   * Keeps an external agent available for `sendAgent` after its turn (its session resumed),
   * within its original budget; for a model sub-agent, keeps what it delegated running
   * between turns. A model sub-agent whose turn is `done` takes `sendAgent` either way.
   */
  multiTurn?: boolean
}

/** Where a sub-agent stands, and what it cost (its own spend plus what it delegated). */
export type SubagentReport = {
  id: string
  status: SubagentStatus
  /** Its last report (the final text of its last turn), or `''`. */
  result: string
  /** Its question, while `status` is `asking`. */
  question?: string
  /** Why it failed, when `status` is `failed`, `budget-exhausted` or `timed-out`. */
  error?: string
  modelCalls: number
  tokens: number
  costUsd: number
  /** Wall-clock seconds from its start to the end of its last turn (or now, if it is running). */
  seconds: number
  directory: string
  /** Files it created or changed in its directory (relative paths, nested sub-agents left out). */
  files: string[]
}

export type SubagentTreeNode = {
  id: string
  parentId: string | undefined
  depth: number
  task: string
  status: SubagentStatus
  /** `model:<provider:model-id>` or `adapter:<name>`. */
  runs: string
  workspace: string
  directory: string
  /** The process of an external agent, while it runs. */
  pid?: number
  modelCalls: number
  costUsd: number
  seconds: number
  children: SubagentTreeNode[]
}

export type SupervisorEvents = {
  'agent-start': {
    id: string
    parentId: string | undefined
    depth: number
    task: string
    runs: string
    directory: string
    pid?: number
  }
  'agent-finish': {
    id: string
    parentId: string | undefined
    depth: number
    status: SubagentStatus
    result: string
    costUsd: number
  }
  'agent-question': { id: string; parentId: string | undefined; depth: number; question: string }
  'agent-cancel': { id: string; parentId: string | undefined; depth: number }
  /**
   * A charge that came after the sub-agent's cancel returned (a runner that let a call go
   * on and settled it late): refused, so it is not on the books; reported here instead.
   */
  'charge-refused': {
    id: string
    parentId: string | undefined
    depth: number
    usage: { calls: number; tokens: number; costUsd: number }
  }
}
export type SupervisorEventName = keyof SupervisorEvents

export type CreateSupervisorOptions = {
  /** The calling agent; sub-agents run with its card (and model, unless `delegate` picks another). */
  agent: Agent
  /** The caller's workspace. */
  workspace: WorkspaceSpec | Workspace
  /** The caller's budget; every sub-agent's is carved from it. */
  budget: Budget
  /** Runs a sub-agent's turn (default: `runAgent` from `@baton/core`). */
  runner?: SubagentRunner
  /**
   * The external agents its sub-agents may be: none by default. A list enables built-in ones
   * (`['codex']`, `['claude-code']`); a record gives adapters by name (`{ codex: codexAdapter,
   * mine: { command, args } }`). Each runs with an allowlisted environment.
   */
  adapters?: AdaptersOption
  /** Providers of workspace kinds other than `directory`. */
  workspaceProviders?: Record<string, WorkspaceProvider>
  /** How deep sub-agents may nest (default 3: children, grandchildren, great-grandchildren). */
  maxDepth?: number
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
}

/** The delegation API of one running agent. */
export interface Supervisor {
  /** The caller's depth: 0 for the agent that created it, 1 for its sub-agents' supervisors, ... */
  readonly depth: number
  readonly workspace: Workspace
  /**
   * Starts a sub-agent and returns its id at once (synchronously). Everything that can be
   * checked is checked here: depth, budget, model, adapter, workspace kind.
   */
  delegate(task: string, options?: DelegateOptions): string
  /** Resolves when each sub-agent has ended its turn or asked, or at the timeout; `null` if paused. */
  waitAgents(
    ids?: string[],
    options?: { timeoutMs?: number },
  ): Promise<Record<string, SubagentReport> | null>
  /**
   * The answer to its question, or more to do for one whose turn is `done`: it goes on with
   * its conversation, directory and what is left of its budget (external agents: `multiTurn` only).
   */
  sendAgent(id: string, text: string): void
  /** Stops it and everything it started, processes included; resolves with its report. */
  cancelAgent(id: string): Promise<SubagentReport>
  /** Stops every sub-agent this caller started. */
  cancelAll(): Promise<void>
  /** Removes a finished sub-agent's directory and report (all of them without `id`). */
  cleanup(id?: string): Promise<void>
  report(id: string): Promise<SubagentReport>
  tree(): SubagentTreeNode[]
  pause(): void
  resume(): void
  readonly paused: boolean
  on<E extends SupervisorEventName>(
    event: E,
    listener: (payload: SupervisorEvents[E]) => void,
  ): () => void
  /**
   * The caller's own tools, as its card allows: the file tools it lists (refused while lent),
   * and the delegation tools if `agentCard.canDelegate`. `runAgent` binds them only when the
   * card it is given lists them: pass `grantTools(agent, Object.keys(supervisor.tools()))`.
   */
  tools(): ToolSet
}
