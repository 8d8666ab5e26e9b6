import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { ownEntry } from '../own-entry'
import { directoryWorkspaceAt } from '../workspace/create-directory-workspace'
import { SUBAGENTS_DIRECTORY } from '../workspace/snapshot-files'
import type { Workspace, WorkspaceProvider } from '../workspace/types'
import {
  UnknownWorkspaceKindError,
  WorkspaceBusyError,
  WorkspaceUnavailableError,
} from '../workspace/workspace-errors'
import { WORKSPACE_ALIASES } from '../workspace/workspace-kind-tools'
import type { SupervisorTree } from './supervisor-state'

/**
 * Checks at `delegate` that a workspace kind can be given out now, and returns its provider
 * (none for `share` and directories).
 *
 * @example
 * checkWorkspaceKind({ kind: 'browser', caller, providers: {} }) // throws UNKNOWN_WORKSPACE_KIND
 */
export function checkWorkspaceKind(options: {
  kind: string
  caller: Workspace
  providers: Record<string, WorkspaceProvider>
}): WorkspaceProvider | undefined {
  const { kind, caller, providers } = options
  if (kind === 'share') {
    if (caller.holder !== undefined) {
      throw new WorkspaceBusyError({ root: caller.root, holder: caller.holder, action: 'share it' })
    }
    return undefined
  }
  // 'new' is a workspace of the caller's own kind.
  const wanted = kind === 'new' ? caller.kind : kind
  if (wanted === 'directory') return undefined
  const provider =
    ownEntry(providers, wanted) ?? ownEntry(providers, ownEntry(WORKSPACE_ALIASES, wanted) ?? '')
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

/** Longer ids (deep trees) get a numbered directory name instead. */
const MAX_ID_NAME_BYTES = 100

/**
 * Where a sub-agent of `tree` keeps its own files: directly under the run's root,
 * `<root>/.subagents/<id>`, however deep it is. Its place in the tree lives in the tree, not
 * in the path, so a 1000-deep tree has paths as short as a flat one. An id too long for a
 * name (`sub-1.1.1...` at depth 60 or so) gets `<its start>~<number>`.
 *
 * @example
 * subagentDirectory(tree, 'sub-1.2') // '<root>/.subagents/sub-1.2'
 */
export function subagentDirectory(tree: Pick<SupervisorTree, 'root' | 'directories'>, id: string) {
  tree.directories += 1
  // At most 3 bytes per UTF-16 unit and at least 1: a short id needs no count of its bytes, and
  // a long one (deep in a tree) none either.
  const fits =
    id.length * 3 <= MAX_ID_NAME_BYTES ||
    (id.length <= MAX_ID_NAME_BYTES && Buffer.byteLength(id) <= MAX_ID_NAME_BYTES)
  const name = fits ? id : `${id.slice(0, 40)}~${tree.directories}`
  // An id is never `.`, `..` or has a separator, so joining it on needs no normalising.
  return `${subagentsRootOf(tree)}${path.sep}${name}`
}

// `<root>/.subagents` of each tree, normalised once rather than per sub-agent.
const subagentsRoots = new WeakMap<object, { root: string; joined: string }>()

/**
 * The directory every sub-agent directory of `tree` is made in: `<root>/.subagents`, absolute.
 *
 * @example
 * subagentsRootOf(tree) // '/work/run/.subagents'
 */
export function subagentsRootOf(tree: Pick<SupervisorTree, 'root'>): string {
  let known = subagentsRoots.get(tree)
  if (known?.root !== tree.root) {
    // Resolved once, so each sub-agent's directory under it is absolute and normalised.
    known = { root: tree.root, joined: path.resolve(tree.root, SUBAGENTS_DIRECTORY) }
    subagentsRoots.set(tree, known)
  }
  return known.joined
}

/**
 * The workspace of a new sub-agent: the caller's own, lent (`share`), or `directory` of its
 * own, made by the kind's provider if there is one (which gets it created; a plain directory
 * is created by the sub-agent's turn). Throws when a provider's directory cannot be made.
 *
 * @example
 * makeWorkspace({ id: 'sub-1', kind: 'new', caller, provider: undefined, directory }).root // directory
 */
export function makeWorkspace(options: {
  id: string
  kind: string
  caller: Workspace
  provider: WorkspaceProvider | undefined
  directory: string
  /** For a plain directory: makes it (once); its file operations wait for it. */
  ready: () => Promise<void>
  onWrite: (file: string) => void
}): Workspace {
  const { id, caller, provider, directory } = options
  if (options.kind === 'share') return caller.lend(id, { onWrite: options.onWrite })
  // A plain directory is made off the main thread (`delegate` stays cheap for a fan-out of a
  // thousand), and only its file operations wait for it; a provider is promised one that exists.
  if (!provider) {
    // `directory` is absolute and normalised (see `subagentDirectory`).
    return directoryWorkspaceAt(directory, { ready: options.ready, onWrite: options.onWrite })
  }
  mkdirSync(directory, { recursive: true })
  return provider.create({ id, directory, parent: caller })
}
