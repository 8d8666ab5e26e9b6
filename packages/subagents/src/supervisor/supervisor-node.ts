import { parseWith } from '@baton/core'
import type { ToolSet } from 'ai'
import { z } from 'zod'
import { cancelSubagent } from './cancel-subagent'
import { cleanupSubagents } from './cleanup-subagents'
import { delegateSubagent } from './delegate-subagent'
import { grantedTools } from './granted-tools'
import { hasKeys } from './has-keys'
import { runTurn } from './run-turn'
import { knownReportOf, reportOf, runsOf, type Subagent, secondsOf } from './subagent'
import { SubagentUnavailableError, UnknownSubagentError } from './supervisor-errors'
import { WaitOptionsSchema } from './supervisor-schemas'
import { notifyChanged, type SupervisorNodeState } from './supervisor-state'
import type {
  DelegateOptions,
  SubagentReport,
  SubagentStatus,
  SubagentTreeNode,
  Supervisor,
  SupervisorEventName,
  SupervisorEvents,
} from './types'
import { Waiter } from './waiter'

const LIVE: readonly SubagentStatus[] = ['running', 'asking']
const Message = z.string().min(1, 'must not be empty')
const NO_WAIT_OPTIONS = WaitOptionsSchema.parse({})

/**
 * The `Supervisor` of one caller in a tree: the public API over its state. Delegating,
 * running turns, cancelling, cleaning up and events each live in a file of their own.
 */
export class SupervisorNode implements Supervisor {
  readonly #node: SupervisorNodeState

  constructor(node: SupervisorNodeState) {
    this.#node = node
    node.supervisor = this
  }

  get depth(): number {
    return this.#node.depth
  }

  get workspace() {
    return this.#node.workspace
  }

  get paused(): boolean {
    return this.#node.paused
  }

  delegate(task: string, options: DelegateOptions = {}): string {
    return delegateSubagent(this.#node, task, options)
  }

  // Not async: a wait in progress holds the waiter and its promise, not a suspended frame of
  // its own as well (~0.45 KB for every level of a deep tree that waits for the one below).
  waitAgents(
    ids?: string[],
    options: { timeoutMs?: number } = {},
  ): Promise<Record<string, SubagentReport> | null> {
    let targets: Subagent[]
    let timeoutMs: number | undefined
    try {
      // Most waits give no options: their defaults need no parse.
      const settings =
        typeof options === 'object' &&
        options !== null &&
        !Array.isArray(options) &&
        !hasKeys(options)
          ? NO_WAIT_OPTIONS
          : parseWith(WaitOptionsSchema, options, 'waitAgents options')
      timeoutMs = settings.timeoutMs
      targets = (ids ?? [...this.#node.children.keys()]).map((id) => this.#get(id))
    } catch (error) {
      // A rejection, as from an async method, whatever throws.
      return Promise.reject(error)
    }
    if (this.#node.paused) return Promise.resolve(null)
    return Waiter.wait(this.#node, targets, timeoutMs).then((settled) =>
      settled ? reportsOf(targets) : null,
    )
  }

  sendAgent(id: string, text: string): void {
    parseWith(Message, text, 'message')
    const node = this.#node
    const subagent = this.#get(id)
    const refuse = (reason: string) =>
      new SubagentUnavailableError({ id, status: subagent.status, reason })
    if (subagent.status === 'asking' && subagent.answer) {
      const answer = subagent.answer
      subagent.answer = undefined
      delete subagent.question
      subagent.status = 'running'
      notifyChanged(node, subagent)
      answer(text)
      return
    }
    if (subagent.status === 'running') throw refuse('it is working; wait for its turn to end')
    if (subagent.status !== 'done') throw refuse('it has ended')
    // A model sub-agent keeps its conversation and directory, so it can always go on; an
    // external agent's session is kept only when it was delegated for several turns.
    if (subagent.adapter && !subagent.multiTurn) {
      throw refuse('it is an external agent that was not delegated with multiTurn: true')
    }
    if (subagent.budget.aborted || subagent.closing) {
      throw refuse('its budget has ended (cancelled or used up)')
    }
    if (subagent.workspaceKind === 'share')
      subagent.workspace = node.workspace.lend(id, { onWrite: subagent.noteWrite })
    subagent.status = 'running'
    delete subagent.endedAt
    notifyChanged(node, subagent)
    subagent.turn = runTurn(node, subagent, text)
  }

  async cancelAgent(id: string): Promise<SubagentReport> {
    const subagent = this.#get(id)
    await cancelSubagent(this.#node, subagent)
    return reportOf(subagent)
  }

  async cancelAll(): Promise<void> {
    const node = this.#node
    await Promise.all([...node.children.values()].map((subagent) => cancelSubagent(node, subagent)))
  }

  async cleanup(id?: string): Promise<void> {
    const node = this.#node
    await cleanupSubagents(node, id === undefined ? [...node.children.values()] : [this.#get(id)])
  }

  async report(id: string): Promise<SubagentReport> {
    return reportOf(this.#get(id))
  }

  tree(): SubagentTreeNode[] {
    const node = this.#node
    return [...node.children.values()].map((subagent) => {
      const spent = subagent.budget.spent()
      return {
        id: subagent.id,
        parentId: node.ownerId,
        depth: node.depth + 1,
        task: subagent.task,
        status: subagent.status,
        runs: runsOf(subagent),
        workspace: subagent.workspaceKind,
        directory: subagent.workspace.root,
        ...(subagent.process?.pid !== undefined && LIVE.includes(subagent.status)
          ? { pid: subagent.process.pid }
          : {}),
        modelCalls: spent.calls,
        costUsd: spent.costUsd,
        seconds: secondsOf(subagent),
        children: subagent.supervisor.tree(),
      }
    })
  }

  pause(): void {
    this.#node.paused = true
    notifyChanged(this.#node)
  }

  resume(): void {
    this.#node.paused = false
  }

  on<E extends SupervisorEventName>(
    event: E,
    listener: (payload: SupervisorEvents[E]) => void,
  ): () => void {
    return this.#node.tree.events.on(event, listener)
  }

  tools(): ToolSet {
    const node = this.#node
    return grantedTools({ agent: node.agent, workspace: node.workspace, supervisor: this })
  }

  #get(id: string): Subagent {
    const subagent = this.#node.children.get(id)
    if (!subagent) {
      throw new UnknownSubagentError({ id, known: [...this.#node.children.keys()] })
    }
    return subagent
  }
}

/**
 * The reports of `targets`, keyed by id in the order asked: at once when every one is known
 * without the disk (the usual case), else once those that compare the disk are read.
 */
function reportsOf(
  targets: Subagent[],
): Record<string, SubagentReport> | Promise<Record<string, SubagentReport>> {
  const reports: Record<string, SubagentReport> = {}
  let reading: Promise<void>[] | undefined
  for (const subagent of targets) {
    const known = knownReportOf(subagent)
    if (known) reports[subagent.id] = known
    else {
      reports[subagent.id] = undefined as never
      reading ??= []
      reading.push(
        reportOf(subagent).then((report) => {
          reports[subagent.id] = report
        }),
      )
    }
  }
  return reading ? Promise.all(reading).then(() => reports) : reports
}
