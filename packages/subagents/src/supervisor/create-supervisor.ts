import { rm, rmdir } from 'node:fs/promises'
import path from 'node:path'
import { type Agent, parseWith } from '@baton/core'
import type { ToolSet } from 'ai'
import { z } from 'zod'
import { enabledAdapters } from '../adapters/enabled-adapters'
import { resolveAdapter } from '../adapters/resolve-adapter'
import { startAdapterProcess } from '../adapters/start-adapter-process'
import type { AgentAdapter } from '../adapters/types'
import { createAgentRunner } from '../runner/create-agent-runner'
import type { SubagentRunner } from '../runner/types'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { SUBAGENTS_DIRECTORY, snapshotFiles } from '../workspace/snapshot-files'
import type { Workspace, WorkspaceLease } from '../workspace/types'
import { createAskCallerTool } from './ask-caller-tool'
import { checkWorkspaceKind, makeWorkspace } from './choose-workspace'
import { grantedTools } from './granted-tools'
import { createSealableBudget } from './sealable-budget'
import { messageOf, statusOf } from './status-of'
import { currentWorkspaceOf, reportOf, runsOf, type Subagent, secondsOf } from './subagent'
import {
  MaxDepthExceededError,
  ModelProviderMismatchError,
  SubagentUnavailableError,
  UnknownSubagentError,
} from './supervisor-errors'
import {
  DelegateOptionsSchema,
  SupervisorOptionsSchema,
  WaitOptionsSchema,
} from './supervisor-schemas'
import type {
  CreateSupervisorOptions,
  DelegateOptions,
  SubagentReport,
  SubagentStatus,
  SubagentTreeNode,
  Supervisor,
  SupervisorEventName,
  SupervisorEvents,
} from './types'

const LIVE: readonly SubagentStatus[] = ['running', 'asking']
/** How long `cancelAgent` waits for a turn that ignores its aborted signal. */
const CANCEL_UNWIND_MS = 30_000

type Listener = (payload: never) => void

type Internal = {
  depth: number
  ownerId: string | undefined
  idPrefix: string
  forward?: <E extends SupervisorEventName>(event: E, payload: SupervisorEvents[E]) => void
}

/**
 * Creates the delegation API of a running agent: sub-agents that work at the same time, each
 * in a workspace of its own and under a budget carved from the caller's.
 *
 * @example
 * const supervisor = createSupervisor({ agent, workspace: { kind: 'directory', root: './work' }, budget })
 * const id = supervisor.delegate('List the TODOs in src/ and report them as a list', { budget: { calls: 4 } })
 * const reports = await supervisor.waitAgents([id])
 * reports?.[id]?.result
 */
export function createSupervisor(options: CreateSupervisorOptions): Supervisor {
  return new SupervisorNode(options, { depth: 0, ownerId: undefined, idPrefix: 'sub-' })
}

class SupervisorNode implements Supervisor {
  readonly depth: number
  readonly workspace: Workspace
  readonly #options: CreateSupervisorOptions
  readonly #internal: Internal
  readonly #maxDepth: number
  readonly #runner: SubagentRunner
  readonly #adapters: Readonly<Record<string, AgentAdapter>>
  readonly #children = new Map<string, Subagent>()
  readonly #listeners = new Map<SupervisorEventName, Set<Listener>>()
  readonly #changeListeners = new Set<() => void>()
  #count = 0
  #paused = false

  constructor(options: CreateSupervisorOptions, internal: Internal) {
    const parsed = parseWith(SupervisorOptionsSchema, options, 'createSupervisor options')
    this.#options = options
    this.#internal = internal
    this.depth = internal.depth
    this.#maxDepth = parsed.maxDepth
    this.#runner = options.runner ?? createAgentRunner()
    this.#adapters = enabledAdapters(options.adapters)
    this.workspace =
      'lend' in options.workspace
        ? options.workspace
        : createDirectoryWorkspace({ root: options.workspace.root })
  }

  get paused(): boolean {
    return this.#paused
  }

  delegate(task: string, options: DelegateOptions = {}): string {
    parseWith(z.string().min(1, 'must say what to do'), task, 'task')
    const settings = parseWith(DelegateOptionsSchema, options, 'delegate options')
    const depth = this.depth + 1
    if (depth > this.#maxDepth) throw new MaxDepthExceededError({ depth, maxDepth: this.#maxDepth })
    const caller = this.#options.agent
    if (settings.model && settings.model.split(':')[0] !== caller.model.split(':')[0]) {
      throw new ModelProviderMismatchError({
        model: settings.model,
        provider: caller.model.split(':')[0]!,
      })
    }
    const adapter = settings.agent ? resolveAdapter(settings.agent, this.#adapters) : undefined
    const provider = checkWorkspaceKind({
      kind: settings.workspace,
      caller: this.workspace,
      providers: this.#options.workspaceProviders ?? {},
    })
    const id = `${this.#internal.idPrefix}${this.#count + 1}`
    // Carved last: every check that can refuse has passed, so nothing is left half-made.
    const carved = this.#options.budget.child(options.budget, {
      name: `${this.#options.budget.name}/${id}`,
    })
    // Sealed when its cancel returns: from then on nothing is recorded against it.
    const { budget, seal } = createSealableBudget(carved, (usage) =>
      this.#emit('charge-refused', {
        id,
        parentId: this.#internal.ownerId,
        depth,
        usage: {
          calls: usage.calls ?? 0,
          tokens: usage.tokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
          costUsd: usage.costUsd ?? 0,
        },
      }),
    )
    this.#count += 1
    let workspace: Workspace
    try {
      workspace = makeWorkspace({ id, kind: settings.workspace, caller: this.workspace, provider })
    } catch (error) {
      budget.cancel('its workspace could not be made')
      throw error
    }
    const agent: Agent = { ...caller, model: settings.model ?? caller.model }
    const subagent: Subagent = {
      id,
      task,
      status: 'running',
      result: '',
      agent,
      budget,
      seal,
      workspaceKind: settings.workspace,
      workspace,
      multiTurn: settings.multiTurn,
      ...(adapter ? { adapterName: settings.agent, adapter } : {}),
      turns: 0,
      conversation: [],
      startedAt: Date.now(),
      baseline:
        settings.workspace === 'share' ? snapshotFiles(workspace.root) : Promise.resolve(new Map()),
      supervisor: undefined as unknown as Supervisor,
    }
    subagent.supervisor = new SupervisorNode(
      {
        ...this.#options,
        // Already the enabled ones: a list of built-in names would be looked up again.
        adapters: this.#adapters,
        agent,
        budget,
        runner: this.#runner,
        workspace: currentWorkspaceOf(subagent),
        maxDepth: this.#maxDepth,
      },
      {
        depth,
        ownerId: id,
        idPrefix: `${id}.`,
        forward: (event, payload) => this.#emit(event, payload),
      },
    )
    this.#children.set(id, subagent)
    this.#emit('agent-start', {
      id,
      parentId: this.#internal.ownerId,
      depth,
      task,
      runs: runsOf(subagent),
      directory: workspace.root,
    })
    subagent.turn = this.#runTurn(subagent, task)
    return id
  }

  async waitAgents(
    ids?: string[],
    options: { timeoutMs?: number } = {},
  ): Promise<Record<string, SubagentReport> | null> {
    const { timeoutMs } = parseWith(WaitOptionsSchema, options, 'waitAgents options')
    const targets = (ids ?? [...this.#children.keys()]).map((id) => this.#get(id))
    if (this.#paused) return null
    const settled = await new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const finish = (value: boolean) => {
        clearTimeout(timer)
        this.#changeListeners.delete(check)
        resolve(value)
      }
      const check = () => {
        if (this.#paused) finish(false)
        else if (targets.every((subagent) => subagent.status !== 'running')) finish(true)
      }
      this.#changeListeners.add(check)
      if (timeoutMs !== undefined) timer = setTimeout(() => finish(true), timeoutMs)
      check()
    })
    if (!settled) return null
    const reports = await Promise.all(targets.map((subagent) => reportOf(subagent)))
    return Object.fromEntries(reports.map((report) => [report.id, report]))
  }

  sendAgent(id: string, text: string): void {
    parseWith(z.string().min(1, 'must not be empty'), text, 'message')
    const subagent = this.#get(id)
    const refuse = (reason: string) =>
      new SubagentUnavailableError({ id, status: subagent.status, reason })
    if (subagent.status === 'asking' && subagent.answer) {
      const answer = subagent.answer
      subagent.answer = undefined
      delete subagent.question
      subagent.status = 'running'
      this.#changed()
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
    if (subagent.budget.aborted) throw refuse('its budget has ended (cancelled or used up)')
    if (subagent.workspaceKind === 'share') subagent.workspace = this.workspace.lend(id)
    subagent.status = 'running'
    delete subagent.endedAt
    this.#changed()
    subagent.turn = this.#runTurn(subagent, text)
  }

  async cancelAgent(id: string): Promise<SubagentReport> {
    const subagent = this.#get(id)
    await this.#cancel(subagent)
    return reportOf(subagent)
  }

  async cancelAll(): Promise<void> {
    await Promise.all([...this.#children.values()].map((subagent) => this.#cancel(subagent)))
  }

  async cleanup(id?: string): Promise<void> {
    const targets = id === undefined ? [...this.#children.values()] : [this.#get(id)]
    await Promise.all(
      targets.map(async (subagent) => {
        await this.#cancel(subagent)
        await subagent.supervisor.cleanup()
        await subagent.workspace.dispose?.()
        if (subagent.workspaceKind !== 'share') {
          await rm(subagent.workspace.root, { recursive: true, force: true })
        }
        this.#children.delete(subagent.id)
      }),
    )
    // Only removed when empty: other callers may keep sub-agents there too.
    await rmdir(path.join(this.workspace.root, SUBAGENTS_DIRECTORY)).catch(() => {})
  }

  async report(id: string): Promise<SubagentReport> {
    return reportOf(this.#get(id))
  }

  tree(): SubagentTreeNode[] {
    return [...this.#children.values()].map((subagent) => {
      const spent = subagent.budget.spent()
      return {
        id: subagent.id,
        parentId: this.#internal.ownerId,
        depth: this.depth + 1,
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
    this.#paused = true
    this.#changed()
  }

  resume(): void {
    this.#paused = false
  }

  on<E extends SupervisorEventName>(
    event: E,
    listener: (payload: SupervisorEvents[E]) => void,
  ): () => void {
    const listeners = this.#listeners.get(event) ?? new Set()
    listeners.add(listener as Listener)
    this.#listeners.set(event, listeners)
    return () => listeners.delete(listener as Listener)
  }

  tools(): ToolSet {
    return grantedTools({ agent: this.#options.agent, workspace: this.workspace, supervisor: this })
  }

  async #runTurn(subagent: Subagent, text: string): Promise<void> {
    subagent.turns += 1
    try {
      await subagent.baseline
      subagent.budget.throwIfAborted()
      if (subagent.adapter) await this.#runAdapterTurn(subagent, subagent.adapter, text)
      else await this.#runModelTurn(subagent, text)
    } catch (error) {
      this.#finish(subagent, statusOf(error, subagent.budget), error)
      return
    }
    this.#finish(subagent, 'done')
  }

  async #runModelTurn(subagent: Subagent, text: string): Promise<void> {
    subagent.conversation.push({ role: 'user', content: text })
    const tools: ToolSet = {
      ...grantedTools({
        agent: subagent.agent,
        workspace: subagent.workspace,
        supervisor: subagent.supervisor,
      }),
      // Always: it is how a sub-agent reports back that it is stuck, and it reaches no one else.
      ask_caller: createAskCallerTool((question) => this.#ask(subagent, question)),
    }
    const result = await this.#runner.run({
      agent: subagent.agent,
      messages: [...subagent.conversation],
      budget: subagent.budget,
      signal: subagent.budget.signal,
      tools,
      directory: subagent.workspace.root,
      ...(this.#options.models ? { models: this.#options.models } : {}),
      ...(this.#options.toolRegistry ? { toolRegistry: this.#options.toolRegistry } : {}),
    })
    subagent.conversation.push(...result.messages)
    subagent.result = result.text
  }

  async #runAdapterTurn(subagent: Subagent, adapter: AgentAdapter, text: string): Promise<void> {
    const child = startAdapterProcess({
      adapter,
      task: text,
      directory: subagent.workspace.root,
      context: {
        turn: subagent.turns,
        ...(subagent.sessionId ? { sessionId: subagent.sessionId } : {}),
      },
      budget: subagent.budget,
      wallet: subagent.agent.wallet,
      onQuestion: (question) => {
        this.#ask(subagent, question).then(
          (answer) => child.answer(answer),
          () => {},
        )
      },
    })
    subagent.process = child
    const outcome = await child.outcome
    subagent.result = outcome.text
    if (outcome.sessionId) subagent.sessionId = outcome.sessionId
  }

  #ask(subagent: Subagent, question: string): Promise<string> {
    const { signal } = subagent.budget
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      subagent.answer = (text) => {
        signal.removeEventListener('abort', onAbort)
        resolve(text)
      }
      subagent.status = 'asking'
      subagent.question = question
      this.#emit('agent-question', {
        id: subagent.id,
        parentId: this.#internal.ownerId,
        depth: this.depth + 1,
        question,
      })
      this.#changed()
    })
  }

  #finish(subagent: Subagent, status: SubagentStatus, error?: unknown): void {
    if (subagent.status === 'cancelled') return
    subagent.status = status
    subagent.endedAt = Date.now()
    delete subagent.process
    if (error !== undefined) subagent.error = messageOf(error)
    else delete subagent.error
    if (subagent.workspaceKind === 'share') (subagent.workspace as WorkspaceLease).release()
    // A sub-agent that will not go on leaves nothing of its own running behind it.
    if (status !== 'done' || !subagent.multiTurn) void subagent.supervisor.cancelAll()
    this.#emit('agent-finish', {
      id: subagent.id,
      parentId: this.#internal.ownerId,
      depth: this.depth + 1,
      status,
      result: subagent.result,
      costUsd: subagent.budget.spent().costUsd,
    })
    this.#changed()
  }

  async #cancel(subagent: Subagent): Promise<void> {
    const willGoOn =
      LIVE.includes(subagent.status) || (subagent.status === 'done' && subagent.multiTurn)
    if (willGoOn) {
      subagent.status = 'cancelled'
      subagent.endedAt = Date.now()
      delete subagent.question
    }
    // From here on nothing more is recorded against it, even for calls already in flight.
    subagent.budget.cancel(`sub-agent ${subagent.id} was cancelled by its caller`)
    await Promise.all([subagent.supervisor.cancelAll(), subagent.process?.stop()])
    delete subagent.process
    if (subagent.workspaceKind === 'share') (subagent.workspace as WorkspaceLease).release()
    // Wait for the turn to unwind (its runner sees the aborted signal): a model call that was
    // in flight and still returns is paid for and recorded, and it must be recorded before the
    // cancel returns, never after. Capped so a runner that ignores the signal cannot hang it.
    await settledWithin(subagent.turn, CANCEL_UNWIND_MS)
    // Whatever the runner does later (a settle of a call it let go on, a charge), nothing more
    // reaches the books of this subtree: it is refused and reported as `charge-refused`.
    subagent.seal()
    if (willGoOn) {
      this.#emit('agent-cancel', {
        id: subagent.id,
        parentId: this.#internal.ownerId,
        depth: this.depth + 1,
      })
      this.#changed()
    }
  }

  #get(id: string): Subagent {
    const subagent = this.#children.get(id)
    if (!subagent) throw new UnknownSubagentError({ id, known: [...this.#children.keys()] })
    return subagent
  }

  #changed(): void {
    for (const listener of [...this.#changeListeners]) listener()
  }

  #emit<E extends SupervisorEventName>(event: E, payload: SupervisorEvents[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        ;(listener as (payload: SupervisorEvents[E]) => void)(payload)
      } catch (error) {
        // A UI listener that throws must not change what happens to a sub-agent; it is
        // reported as a process warning instead.
        process.emitWarning(error instanceof Error ? error : String(error), {
          code: 'BATON_SUPERVISOR_LISTENER',
        })
      }
    }
    this.#internal.forward?.(event, payload)
  }
}

async function settledWithin(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
