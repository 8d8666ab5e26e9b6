import type { Agent, Budget } from '@baton/core'
import type { AgentAdapter } from '../adapters/types'
import type { SubagentRunner } from '../runner/types'
import type { Workspace } from '../workspace/types'
import type { SharedTools } from './shared-turn-tools'
import type { Subagent } from './subagent'
import type { SupervisorEventHub } from './supervisor-event-hub'
import type { CreateSupervisorOptions, Supervisor } from './types'

/** What every supervisor of one tree shares: settings, the runner, the events, the run's root. */
export type SupervisorTree = {
  options: CreateSupervisorOptions
  runner: SubagentRunner
  /** The runner's `filesOnlyThroughTools`: its tools are the only way it writes files. */
  filesOnlyThroughTools: boolean
  adapters: Readonly<Record<string, AgentAdapter>>
  maxDepth: number
  events: SupervisorEventHub
  /** The root caller's workspace directory: every sub-agent's own directory is directly below it. */
  root: string
  /** The root caller's budget name: sub-agent budgets are `<it>/<id>`. */
  budgetName: string
  /** Numbers the sub-agent directories of the tree whose ids are too long for a name. */
  directories: number
  /** The tools made once for the tree's sub-agents, per grant (see `sharedTurnTools`). */
  sharedTools: SharedTools[]
  /** Makes the supervisor of a new sub-agent (kept here so the files do not import each other). */
  createNode(state: SupervisorNodeState): Supervisor
}

/** One supervisor's own state: the sub-agents it started and who it works for. */
export type SupervisorNodeState = {
  tree: SupervisorTree
  /** 0 for the root caller, 1 for its sub-agents' supervisors, ... */
  depth: number
  /** The sub-agent this supervisor belongs to (`undefined` for the root). */
  ownerId: string | undefined
  idPrefix: string
  agent: Agent
  budget: Budget
  workspace: Workspace
  children: Map<string, Subagent>
  /** Those whose budget is not cancelled yet: what a cancel must still reach. */
  open: Set<Subagent>
  /** Called with the sub-agent that changed (none: the supervisor itself, e.g. paused). */
  changeListeners: Set<(changed?: Subagent) => void>
  count: number
  paused: boolean
  /** This state's own supervisor (its delegation tools). */
  supervisor: Supervisor
}

/** Tells waiters of one supervisor that `changed` (or the supervisor itself) changed. */
export function notifyChanged(node: SupervisorNodeState, changed?: Subagent): void {
  for (const listener of [...node.changeListeners]) listener(changed)
}
