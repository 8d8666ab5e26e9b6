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
  /** Changed only through `addChild`, `forgetChild` and `forgetChildren`. */
  children: ReadonlyMap<string, Subagent>
  /**
   * Those whose budget is not cancelled yet: what a cancel must still reach. Changed only
   * through `addChild`, `closeChild`, `forgetChild` and `forgetChildren`.
   */
  open: ReadonlySet<Subagent>
  /**
   * Told of the sub-agent that changed (none: the supervisor itself, e.g. paused): none, one,
   * or a set of several (most supervisors have one waiter at a time, or none). Changed only
   * through `listenForChanges` and `stopListening`.
   */
  changeListeners: ChangeListener | ReadonlySet<ChangeListener> | undefined
  count: number
  paused: boolean
  /** This state's own supervisor (its delegation tools). */
  supervisor: Supervisor
}

/** Told of every change of a supervisor's sub-agents (see `listenForChanges`). */
export interface ChangeListener {
  changed(changed?: Subagent): void
}

// What a supervisor holds before its first sub-agent: most sub-agents never start one of
// their own (every leaf of a tree), and an empty map and set of its own were ~400 bytes of
// every running sub-agent. Shared, so never written: the helpers below replace them with
// collections of the node's own on its first addition.
export const NO_CHILDREN: ReadonlyMap<string, Subagent> = new Map()
export const NONE_OPEN: ReadonlySet<Subagent> = new Set()

/** Records `subagent` as a child of `node`, open until it is closed. */
export function addChild(node: SupervisorNodeState, subagent: Subagent): void {
  if (node.children === NO_CHILDREN) node.children = new Map()
  if (node.open === NONE_OPEN) node.open = new Set()
  ;(node.children as Map<string, Subagent>).set(subagent.id, subagent)
  ;(node.open as Set<Subagent>).add(subagent)
}

/** `subagent` is closed: a cancel of `node` no longer needs to reach it. */
export function closeChild(node: SupervisorNodeState, subagent: Subagent): void {
  if (node.open !== NONE_OPEN) (node.open as Set<Subagent>).delete(subagent)
}

/** `subagent` is cleaned up: `node` no longer knows it. */
export function forgetChild(node: SupervisorNodeState, subagent: Subagent): void {
  if (node.children !== NO_CHILDREN) (node.children as Map<string, Subagent>).delete(subagent.id)
  closeChild(node, subagent)
}

/** Every child of `node` is cleaned up. */
export function forgetChildren(node: SupervisorNodeState): void {
  node.children = NO_CHILDREN
  node.open = NONE_OPEN
}

/** Tells `listener` of every change of `node` until `stopListening`. */
export function listenForChanges(node: SupervisorNodeState, listener: ChangeListener): void {
  const listeners = node.changeListeners
  if (listeners === undefined) node.changeListeners = listener
  else if (listeners instanceof Set) (listeners as Set<ChangeListener>).add(listener)
  else node.changeListeners = new Set([listeners as ChangeListener, listener])
}

export function stopListening(node: SupervisorNodeState, listener: ChangeListener): void {
  const listeners = node.changeListeners
  if (listeners === listener) node.changeListeners = undefined
  else if (listeners instanceof Set) (listeners as Set<ChangeListener>).delete(listener)
}

/** Tells waiters of one supervisor that `changed` (or the supervisor itself) changed. */
export function notifyChanged(node: SupervisorNodeState, changed?: Subagent): void {
  const listeners = node.changeListeners
  if (listeners === undefined) return
  if (listeners instanceof Set) {
    // A copy: a listener that is done stops listening while the others are told.
    for (const listener of [...listeners] as ChangeListener[]) listener.changed(changed)
  } else {
    ;(listeners as ChangeListener).changed(changed)
  }
}
