import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { SUBAGENTS_DIRECTORY } from '../workspace/snapshot-files'
import type { Workspace, WorkspaceProvider } from '../workspace/types'
import {
  UnknownWorkspaceKindError,
  WorkspaceBusyError,
  WorkspaceUnavailableError,
} from '../workspace/workspace-errors'

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

/**
 * The workspace of a new sub-agent: the caller's own, lent (`share`), or a directory of its own
 * under `<caller root>/.subagents/<id>`, made by the kind's provider if there is one.
 *
 * @example
 * makeWorkspace({ id: 'sub-1', kind: 'new', caller, provider: undefined }).root // '<root>/.subagents/sub-1'
 */
export function makeWorkspace(options: {
  id: string
  kind: string
  caller: Workspace
  provider: WorkspaceProvider | undefined
}): Workspace {
  const { id, caller, provider } = options
  if (options.kind === 'share') return caller.lend(id)
  const directory = path.join(caller.root, SUBAGENTS_DIRECTORY, id)
  mkdirSync(directory, { recursive: true })
  if (!provider) return createDirectoryWorkspace({ root: directory })
  return provider.create({ id, directory, parent: caller })
}
