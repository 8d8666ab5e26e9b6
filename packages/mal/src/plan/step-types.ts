import type { BudgetLimits, TrustTier, Wallet } from '@baton/core'
import type { ConclaveStep } from './conclave-step'
import type { SearchStep } from './search-step-types'

export type {
  SearchAgentsStep,
  SearchModelsStep,
  SearchStep,
  SearchToolsStep,
} from './search-step-types'

/** How much of its surroundings a `task` shares: memory, workspace, or nothing isolated. */
export type Isolation = 'none' | 'memory' | 'workspace'

export type TaskStep = {
  op: 'task'
  saveAs: string
  agentWallet: Wallet
  prompt: string
  tools?: string[]
  persona?: string
  budget?: BudgetLimits
  isolation: Isolation
  /**
   * A workspace of that kind for the task (a browser of its own, or a display), from the
   * host's workspace providers; the agent's card must list some of the kind's tools.
   */
  workspace?: TaskWorkspaceKind
  /** The agent must be trusted at least this much, or the step fails before anything is spent. */
  minTrustTier?: TrustTier
}
/** The workspace kinds a `task` may ask for besides a directory. */
export type TaskWorkspaceKind = 'browser' | 'display'
export type DelegateStep = {
  op: 'delegate'
  saveAs: string
  agentWallet: Wallet
  prompt: string
  budget?: BudgetLimits
  /** The agent must be trusted at least this much, or the step fails before anything is spent. */
  minTrustTier?: TrustTier
}
export type ModelsCallStep = {
  op: 'models_call'
  saveAs: string
  model: string
  prompt: string
  system?: string
  temperature?: number
  budget?: BudgetLimits
}
export type Gather = 'all' | 'any-success' | 'first'
export type FanoutBranch = { id: string; steps: Step[] }
export type FanoutStep = {
  op: 'fanout'
  saveAs: string
  branches: FanoutBranch[]
  gather: Gather
  concurrency?: number
}
export type IfStep = { op: 'if'; cond: string; then: Step[]; else?: Step[] }
export type LoopStep = { op: 'loop'; while: string; do: Step[]; maxIters: number }
export type ToolStep = {
  op: 'tool'
  saveAs: string
  toolName: string
  args: Record<string, unknown>
  budget?: BudgetLimits
}
export type ScratchAction = 'write' | 'read' | 'list' | 'delete'
export type ScratchStep = {
  op: 'scratch'
  action: ScratchAction
  key?: string
  value?: unknown
  saveAs?: string
}
export type SynthesizeStep = {
  op: 'synthesize'
  saveAs: string
  from: string[]
  instruction: string
  model?: string
  budget?: BudgetLimits
}
export type AskUserStep = { op: 'ask_user'; saveAs: string; question: string }
export type StopStep = { op: 'stop'; output: unknown; reason?: string }

/** One step of a MAL plan. */
export type Step =
  | TaskStep
  | DelegateStep
  | ModelsCallStep
  | FanoutStep
  | IfStep
  | LoopStep
  | ToolStep
  | ScratchStep
  | SynthesizeStep
  | AskUserStep
  | StopStep
  | SearchStep
  | ConclaveStep

export type StepOp = Step['op']
