import { mkdirSync } from 'node:fs'
import { rm, rmdir } from 'node:fs/promises'
import path from 'node:path'
import { type Agent, type Budget, ModelRef, parseWith } from '@baton/core'
import type { ModelMessage, ToolSet } from 'ai'
import { z } from 'zod'
import { AdapterUnavailableError, UnknownAdapterError } from '../adapters/adapter-errors'
import { claudeCodeAdapter } from '../adapters/claude-code-adapter'
import { codexAdapter } from '../adapters/codex-adapter'
import { findExecutable } from '../adapters/find-executable'
import { type AdapterProcess, startAdapterProcess } from '../adapters/start-adapter-process'
import { type AgentAdapter, AgentAdapterSchema } from '../adapters/types'
import { createAgentRunner } from '../runner/create-agent-runner'
import type { SubagentRunner } from '../runner/types'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { createFileTools } from '../workspace/create-file-tools'
import {
  changedFiles,
  type FileSnapshot,
  SUBAGENTS_DIRECTORY,
  snapshotFiles,
} from '../workspace/snapshot-files'
import type { Workspace, WorkspaceLease, WorkspaceProvider } from '../workspace/types'
import {
  UnknownWorkspaceKindError,
  WorkspaceBusyError,
  WorkspaceUnavailableError,
} from '../workspace/workspace-errors'
import { createAskCallerTool } from './ask-caller-tool'
import { createDelegationTools } from './create-delegation-tools'
import { messageOf, statusOf } from './status-of'
import {
  MaxDepthExceededError,
  ModelProviderMismatchError,
  SubagentUnavailableError,
  UnknownSubagentError,
} from './supervisor-errors'
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

const DelegateOptionsSchema = z
  .object({
    workspace: z.string().min(1).default('new'),
    budget: z.record(z.string(), z.unknown()).optional(),
    model: ModelRef.optional(),
    agent: z.string().min(1).optional(),
    multiTurn: z.boolean().default(false),
  })
  .strict()
  .refine((options) => !(options.model && options.agent), {
    message: 'give either a model or an external agent, not both',
    path: ['agent'],
  })

const SupervisorOptionsSchema = z.object({
  agent: z.custom<Agent>(
    (value) => typeof (value as Agent | undefined)?.model === 'string',
    'must be an agent (with a model)',
  ),
  workspace: z.union([
    z.object({ kind: z.literal('directory'), root: z.string().min(1) }),
    z.custom<Workspace>(
      (value) => typeof (value as Workspace | undefined)?.lend === 'function',
      'must be { kind: "directory", root } or a Workspace',
    ),
  ]),
  budget: z.custom<Budget>(
    (value) => typeof (value as Budget | undefined)?.child === 'function',
    'must be a budget (see createBudget)',
  ),
  adapters: z.record(z.string(), AgentAdapterSchema).optional(),
  maxDepth: z.number().int().min(0).default(3),
})

const WaitOptionsSchema = z.object({ timeoutMs: z.number().nonnegative().optional() })

const BUILT_IN_ADAPTERS: Record<string, AgentAdapter> = {
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
}

const LIVE: readonly SubagentStatus[] = ['running', 'asking']

type Listener = (payload: never) => void

type Subagent = {
  id: string
  task: string
  status: SubagentStatus
  result: string
  question?: string
  error?: string
  agent: Agent
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
  baseline: Promise<FileSnapshot>
  supervisor: SupervisorNode
  answer?: (text: string) => void
  turn?: Promise<void>
}

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
  readonly #adapters: Record<string, AgentAdapter>
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
    this.#adapters = { ...BUILT_IN_ADAPTERS, ...options.adapters }
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
    const adapter = settings.agent ? this.#adapterFor(settings.agent) : undefined
    const provider = this.#checkWorkspaceKind(settings.workspace)
    const id = `${this.#internal.idPrefix}${this.#count + 1}`
    // Carved last: every check that can refuse has passed, so nothing is left half-made.
    const budget = this.#options.budget.child(options.budget, {
      name: `${this.#options.budget.name}/${id}`,
    })
    this.#count += 1
    let workspace: Workspace
    try {
      workspace = this.#workspaceFor({ id, kind: settings.workspace, provider })
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
      workspaceKind: settings.workspace,
      workspace,
      multiTurn: settings.multiTurn,
      ...(adapter ? { adapterName: settings.agent, adapter } : {}),
      turns: 0,
      conversation: [],
      startedAt: Date.now(),
      baseline:
        settings.workspace === 'share' ? snapshotFiles(workspace.root) : Promise.resolve(new Map()),
      supervisor: undefined as unknown as SupervisorNode,
    }
    subagent.supervisor = new SupervisorNode(
      {
        ...this.#options,
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
    const reports = await Promise.all(targets.map((subagent) => this.#reportOf(subagent)))
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
    if (!subagent.multiTurn) throw refuse('it was not delegated with multiTurn: true')
    if (subagent.workspaceKind === 'share') subagent.workspace = this.workspace.lend(id)
    subagent.status = 'running'
    delete subagent.endedAt
    this.#changed()
    subagent.turn = this.#runTurn(subagent, text)
  }

  async cancelAgent(id: string): Promise<SubagentReport> {
    const subagent = this.#get(id)
    await this.#cancel(subagent)
    return this.#reportOf(subagent)
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
    return this.#reportOf(this.#get(id))
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
    return { ...createFileTools(this.workspace), ...createDelegationTools(this) }
  }

  async #runTurn(subagent: Subagent, text: string): Promise<void> {
    subagent.turns += 1
    try {
      await subagent.baseline
      subagent.budget.throwIfAborted()
      if (subagent.adapter) await this.#runAdapterTurn(subagent, subagent.adapter, text)
      else await this.#runModelTurn(subagent, text)
      this.#finish(subagent, 'done')
    } catch (error) {
      this.#finish(subagent, statusOf(error, subagent.budget), error)
    }
  }

  async #runModelTurn(subagent: Subagent, text: string): Promise<void> {
    subagent.conversation.push({ role: 'user', content: text })
    const tools: ToolSet = {
      ...createFileTools(subagent.workspace),
      ...subagent.workspace.tools?.(),
      ...createDelegationTools(subagent.supervisor),
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
    // Let the turn unwind (its runner sees the aborted signal), but never hang on it.
    await Promise.race([subagent.turn, delay(1000)])
    if (willGoOn) {
      this.#emit('agent-cancel', {
        id: subagent.id,
        parentId: this.#internal.ownerId,
        depth: this.depth + 1,
      })
      this.#changed()
    }
  }

  #adapterFor(name: string): AgentAdapter {
    const adapter = this.#adapters[name]
    if (!adapter)
      throw new UnknownAdapterError({ adapter: name, known: Object.keys(this.#adapters) })
    const searchPath = adapter.env?.PATH ?? process.env.PATH
    if (!findExecutable(adapter.command, searchPath)) {
      throw new AdapterUnavailableError({ adapter: name, command: adapter.command })
    }
    return adapter
  }

  #checkWorkspaceKind(kind: string): WorkspaceProvider | undefined {
    const providers = this.#options.workspaceProviders ?? {}
    if (kind === 'share') {
      const holder = this.workspace.holder
      if (holder !== undefined) {
        throw new WorkspaceBusyError({ root: this.workspace.root, holder, action: 'share it' })
      }
      return undefined
    }
    // 'new' is a workspace of the caller's own kind.
    const wanted = kind === 'new' ? this.workspace.kind : kind
    if (wanted === 'directory') return undefined
    const provider = providers[wanted]
    if (!provider) {
      throw new UnknownWorkspaceKindError({
        kind: wanted,
        known: ['new', 'share', 'directory', ...Object.keys(providers)],
      })
    }
    const reason = provider.unavailableReason?.()
    if (reason !== undefined) throw new WorkspaceUnavailableError({ kind: wanted, reason })
    return provider
  }

  #workspaceFor(options: {
    id: string
    kind: string
    provider: WorkspaceProvider | undefined
  }): Workspace {
    if (options.kind === 'share') return this.workspace.lend(options.id)
    const directory = path.join(this.workspace.root, SUBAGENTS_DIRECTORY, options.id)
    mkdirSync(directory, { recursive: true })
    if (!options.provider) return createDirectoryWorkspace({ root: directory })
    return options.provider.create({ id: options.id, directory, parent: this.workspace })
  }

  async #reportOf(subagent: Subagent): Promise<SubagentReport> {
    const spent = subagent.budget.spent()
    const [before, after] = await Promise.all([
      subagent.baseline,
      snapshotFiles(subagent.workspace.root),
    ])
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
      files: changedFiles(before, after),
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
      ;(listener as (payload: SupervisorEvents[E]) => void)(payload)
    }
    this.#internal.forward?.(event, payload)
  }
}

/** The sub-agent's workspace as its own supervisor sees it: for `share`, the current lease. */
function currentWorkspaceOf(subagent: Subagent): Workspace {
  return {
    get kind() {
      return subagent.workspace.kind
    },
    get root() {
      return subagent.workspace.root
    },
    get holder() {
      return subagent.workspace.holder
    },
    lend: (holder) => subagent.workspace.lend(holder),
    readFile: (file) => subagent.workspace.readFile(file),
    writeFile: (file, content) => subagent.workspace.writeFile(file, content),
    listFiles: (directory) => subagent.workspace.listFiles(directory),
  }
}

function runsOf(subagent: Subagent): string {
  return subagent.adapterName ? `adapter:${subagent.adapterName}` : `model:${subagent.agent.model}`
}

function secondsOf(subagent: Subagent): number {
  return ((subagent.endedAt ?? Date.now()) - subagent.startedAt) / 1000
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.())
}
