import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { type Agent, parseWith } from '@baton/core'
import { z } from 'zod'
import { resolveAdapter } from '../adapters/resolve-adapter'
import { SUBAGENTS_DIRECTORY, snapshotFiles } from '../workspace/snapshot-files'
import type { Workspace, WorkspaceLease } from '../workspace/types'
import { WorkspaceUnavailableError } from '../workspace/workspace-errors'
import { checkWorkspaceKind, makeWorkspace, subagentDirectory } from './choose-workspace'
import { hasKeys } from './has-keys'
import { runTurn } from './run-turn'
import { createSealableBudget } from './sealable-budget'
import { currentWorkspaceOf, runsOf, type Subagent } from './subagent'
import { subagentCard } from './subagent-card'
import { MaxDepthExceededError, ModelProviderMismatchError } from './supervisor-errors'
import { DelegateOptionsSchema } from './supervisor-schemas'
import {
  addChild,
  NO_CHILDREN,
  NONE_OPEN,
  notifyChanged,
  type SupervisorNodeState,
} from './supervisor-state'
import type { DelegateOptions } from './types'
import { unavailableWorkspace } from './unavailable-workspace'

// Made once: a zod schema costs far more to build than to use.
const Task = z.string().min(1, 'must say what to do')
const NO_OPTIONS = DelegateOptionsSchema.parse({})
// Shared by every sub-agent until its first write; never added to.
const NOTHING_WRITTEN: ReadonlySet<string> = new Set<string>()
// The baseline of a sub-agent whose report does not compare the disk: shared, never written.
const NO_BASELINE: Promise<ReadonlyMap<string, string>> = Promise.resolve(new Map())

/**
 * Starts a sub-agent of `node` and returns its id at once. Every check that can refuse the
 * request (task, options, depth, model, adapter, workspace kind, budget) runs before anything
 * is made, and throws. A workspace that cannot be created after that (the disk refuses the
 * directory, a provider throws) does not throw into the caller's tool call, where it would
 * read as an ordinary result: the sub-agent is recorded as `failed` with the reason.
 *
 * @example
 * const id = delegateSubagent(node, 'List the TODOs', { budget: { calls: 4 } }) // 'sub-1'
 */
export function delegateSubagent(
  node: SupervisorNodeState,
  task: string,
  options: DelegateOptions = {},
): string {
  // Checked by hand first: a parse answers an object per call, for every sub-agent.
  if (typeof task !== 'string' || task.length === 0) parseWith(Task, task, 'task')
  // Most delegations give no options: their defaults need no parse.
  const settings =
    typeof options === 'object' && options !== null && !hasKeys(options)
      ? NO_OPTIONS
      : parseWith(DelegateOptionsSchema, options, 'delegate options')
  const { tree } = node
  const depth = node.depth + 1
  if (depth > tree.maxDepth) throw new MaxDepthExceededError({ depth, maxDepth: tree.maxDepth })
  const caller = node.agent
  if (settings.model && settings.model.split(':')[0] !== caller.model.split(':')[0]) {
    throw new ModelProviderMismatchError({
      model: settings.model,
      provider: caller.model.split(':')[0]!,
    })
  }
  const adapter = settings.agent ? resolveAdapter(settings.agent, tree.adapters) : undefined
  const provider = checkWorkspaceKind({
    kind: settings.workspace,
    caller: node.workspace,
    providers: tree.options.workspaceProviders ?? {},
  })
  // Joined, not concatenated: `+` and template literals make V8 keep a tree of the parts (a
  // cons string), so each id would hold its caller's, a tree as deep as the sub-agent, walked
  // again wherever it is first hashed (a map key, its budget's name): ~3× the cost of one flat
  // copy per level in a 1000-deep tree.
  const id = [node.idPrefix, node.count + 1].join('')
  // Carved last: every check that can refuse has passed, so nothing is left half-made.
  // Named after the root's budget: the id already says where it is, and a name that grew
  // with every level would cost O(depth) per level to build and hold. Numbered when taken:
  // two supervisors on one budget (two tasks of a plan, say) both start at `sub-1`.
  const carved = node.budget.child(options.budget, {
    name: `${tree.budgetName}/${id}`,
    ifTaken: 'number',
  })
  node.count += 1
  // Sealed when its cancel returns: from then on nothing is recorded against it.
  const budget = createSealableBudget(carved, (usage) =>
    tree.events.emit('charge-refused', {
      id,
      parentId: node.ownerId,
      depth,
      usage: {
        calls: usage.calls ?? 0,
        tokens: usage.tokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
        costUsd: usage.costUsd ?? 0,
      },
    }),
  )
  const directory = subagentDirectory(tree, id)
  const plain = settings.workspace !== 'share' && !provider
  let making: Promise<void> | undefined
  // Made when first needed: a sub-agent that never touches a file costs no file system work.
  // A directory that cannot be made fails this sub-agent (its status says why), not only a
  // tool call, where it would read as an ordinary result.
  const ready = () => {
    if (making) return making
    making = plain
      ? makeDirectory(directory).catch((error: unknown) => {
          subagent.workspaceFailure = error
          budget.cancel('its workspace could not be made')
          throw error
        })
      : Promise.resolve()
    subagent.directoryMaking = making
    return making
  }
  // Its files are only what its file tools wrote when nothing else can write there: a model
  // sub-agent on the default runner, in a plain directory of its own. Its report then needs
  // no snapshot of the disk.
  let workspace: Workspace
  let workspaceError: unknown
  const noteWrite = (file: string) => {
    subagent.wroteFiles = true
    const relative = path.relative(workspace.root, path.resolve(workspace.root, file))
    // Its own sub-agents' directories are their work, not its (as a snapshot leaves them out).
    if (relative.split(path.sep)[0] === SUBAGENTS_DIRECTORY) return
    // Made at the first write: most sub-agents of a fan-out write nothing.
    if (subagent.written === NOTHING_WRITTEN) subagent.written = new Set()
    ;(subagent.written as Set<string>).add(relative)
  }
  try {
    workspace = makeWorkspace({
      id,
      kind: settings.workspace,
      caller: node.workspace,
      provider,
      directory,
      ready,
      onWrite: noteWrite,
    })
  } catch (error) {
    workspaceError = error
    workspace = unavailableWorkspace(directory, error)
    budget.cancel('its workspace could not be made')
  }
  // A lease of the caller's directory that reports its writes is as good as a directory of
  // its own: what it wrote is known without reading the (possibly large) shared tree.
  const tracked = plain || (workspace as Partial<WorkspaceLease>).reportsWrites === true
  const filesOnlyThroughTools = tracked && !adapter && tree.filesOnlyThroughTools
  const agent: Agent = subagentCard(caller, settings.model ?? caller.model)
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
      settings.workspace === 'share' && workspaceError === undefined && !filesOnlyThroughTools
        ? snapshotFiles(workspace.root)
        : NO_BASELINE,
    ensureDirectory: ready,
    // Plain fields, kept up to date by `ready` and `noteWrite`: getters on an object literal
    // cost an accessor pair per sub-agent.
    directoryMaking: undefined,
    filesOnlyThroughTools,
    wroteFiles: false,
    written: NOTHING_WRITTEN,
    noteWrite,
    supervisor: undefined as never,
    node: undefined as never,
    turnSettled: true,
  }
  const child: SupervisorNodeState = {
    tree,
    depth,
    ownerId: id,
    idPrefix: `${id}.`,
    agent,
    budget,
    workspace: currentWorkspaceOf(subagent),
    children: NO_CHILDREN,
    open: NONE_OPEN,
    changeListeners: undefined,
    count: 0,
    paused: false,
    supervisor: undefined as never,
  }
  subagent.node = child
  subagent.supervisor = tree.createNode(child)
  addChild(node, subagent)
  tree.events.emit('agent-start', {
    id,
    parentId: node.ownerId,
    depth,
    task,
    runs: runsOf(subagent),
    directory: workspace.root,
  })
  if (workspaceError === undefined) {
    subagent.turn = runTurn(node, subagent, task)
  } else {
    failWithoutWorkspace(node, subagent, workspaceError)
  }
  return id
}

function makeDirectory(root: string): Promise<void> {
  return mkdir(root, { recursive: true }).then(
    () => {},
    (error: Error) => {
      throw new WorkspaceUnavailableError({
        kind: 'directory',
        reason: `its directory could not be made (${error.message})`,
      })
    },
  )
}

function failWithoutWorkspace(node: SupervisorNodeState, subagent: Subagent, error: unknown) {
  subagent.status = 'failed'
  subagent.endedAt = Date.now()
  subagent.error = `its workspace could not be made: ${error instanceof Error ? error.message : String(error)}`
  node.tree.events.emit('agent-finish', {
    id: subagent.id,
    parentId: node.ownerId,
    depth: node.depth + 1,
    status: 'failed',
    result: '',
    costUsd: 0,
  })
  notifyChanged(node, subagent)
}
