import type { Agent, Budget } from '@baton/core'
import type { ModelMessage } from 'ai'
import type { AdapterProcess } from '../adapters/start-adapter-process'
import type { AgentAdapter } from '../adapters/types'
import { changedFiles, snapshotFiles } from '../workspace/snapshot-files'
import type { LendOptions, Workspace } from '../workspace/types'
import type { SupervisorNodeState } from './supervisor-state'
import type { SubagentReport, SubagentStatus, Supervisor } from './types'

/** What a supervisor keeps about one sub-agent it started. */
export type Subagent = {
  id: string
  task: string
  status: SubagentStatus
  result: string
  question?: string
  error?: string
  agent: Agent
  /** Sealed (`sealBudget`) at the end of its cancel: nothing more is recorded against it. */
  budget: Budget
  workspaceKind: string
  /** Its workspace; for `share`, the lease of the current turn. */
  workspace: Workspace
  multiTurn: boolean
  adapterName?: string
  adapter?: AgentAdapter
  process?: AdapterProcess
  sessionId?: string
  turns: number
  conversation: ModelMessage[]
  startedAt: number
  endedAt?: number
  baseline: Promise<ReadonlyMap<string, string>>
  /**
   * Makes its directory, once, off the main thread: at its first file operation, or before a
   * turn of anything that may touch the directory without the file tools.
   */
  ensureDirectory: () => Promise<void>
  /** The making of its directory, once started. */
  directoryMaking: Promise<void> | undefined
  /** Why its directory could not be made; it then ends `failed` with this reason. */
  workspaceFailure?: unknown
  /** True when only its file tools can change its files (so a report needs no disk snapshot). */
  filesOnlyThroughTools: boolean
  /** Whether its file tools wrote anything. */
  wroteFiles: boolean
  /** The files its tools (and those of sub-agents it lent its workspace to) wrote, relative. */
  written: ReadonlySet<string>
  /** Hears of each file written in its workspace (given to its lease for `share`). */
  noteWrite: (file: string) => void
  /** Its own supervisor, for what it delegates. */
  supervisor: Supervisor
  /** That supervisor's state: its children, for cancel and cleanup. */
  node: SupervisorNodeState
  answer?: (text: string) => void
  turn?: Promise<void>
  /** False while a turn runs; a cancel waits only for a turn that has not settled. */
  turnSettled: boolean
  /** Set when its workspace's `dispose` was first called (cancel, a final turn, cleanup): once. */
  disposing?: Promise<void>
  /** Set by the first cancel (its budget cancelled, its subtree closed); later ones share it. */
  closing?: Promise<void>
}

/** The sub-agent's workspace as its own supervisor sees it: for `share`, the current lease. */
export function currentWorkspaceOf(subagent: Subagent): Workspace {
  return new CurrentWorkspace(subagent)
}

// A class rather than an object literal with getters: a thousand of them are made in a fan-out.
class CurrentWorkspace implements Workspace {
  readonly #subagent: Subagent
  constructor(subagent: Subagent) {
    this.#subagent = subagent
  }
  get kind() {
    return this.#subagent.workspace.kind
  }
  get root() {
    return this.#subagent.workspace.root
  }
  get holder() {
    return this.#subagent.workspace.holder
  }
  lend(holder: string, options?: LendOptions) {
    return this.#subagent.workspace.lend(holder, options)
  }
  readFile(file: string) {
    return this.#subagent.workspace.readFile(file)
  }
  writeFile(file: string, content: string) {
    return this.#subagent.workspace.writeFile(file, content)
  }
  listFiles(directory?: string) {
    return this.#subagent.workspace.listFiles(directory)
  }
}

export function runsOf(subagent: Subagent): string {
  return subagent.adapterName ? `adapter:${subagent.adapterName}` : `model:${subagent.agent.model}`
}

export function secondsOf(subagent: Subagent): number {
  return ((subagent.endedAt ?? Date.now()) - subagent.startedAt) / 1000
}

/**
 * A sub-agent's report: status, spend (its own and what it delegated) and the files it made.
 *
 * @example
 * const report = await reportOf(subagent) // { id: 'sub-1', status: 'done', files: ['notes.md'], ... }
 */
export async function reportOf(subagent: Subagent): Promise<SubagentReport> {
  return knownReportOf(subagent) ?? reportWith(subagent, await changedFilesOf(subagent))
}

/**
 * The report at once when its files are known without reading the disk (only its file tools
 * wrote there: what they wrote is the list); `undefined` when `reportOf` must compare snapshots.
 */
export function knownReportOf(subagent: Subagent): SubagentReport | undefined {
  return subagent.filesOnlyThroughTools
    ? reportWith(subagent, [...subagent.written].sort())
    : undefined
}

async function changedFilesOf(subagent: Subagent): Promise<string[]> {
  const [before, after] = await Promise.all([
    subagent.baseline,
    snapshotFiles(subagent.workspace.root),
  ])
  return changedFiles(before, after)
}

function reportWith(subagent: Subagent, files: string[]): SubagentReport {
  const spent = subagent.budget.spent()
  return {
    id: subagent.id,
    status: subagent.status,
    result: subagent.result,
    ...(subagent.status === 'asking' && subagent.question !== undefined
      ? { question: subagent.question }
      : {}),
    ...(subagent.error !== undefined && subagent.status !== 'done'
      ? { error: subagent.error }
      : {}),
    modelCalls: spent.calls,
    tokens: spent.tokens,
    costUsd: spent.costUsd,
    seconds: secondsOf(subagent),
    directory: subagent.workspace.root,
    files,
  }
}
