import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { mkdir, rm, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  createDirectoryWorkspace,
  SUBAGENTS_DIRECTORY,
  UnknownWorkspaceKindError,
  WORKSPACE_ALIASES,
  type Workspace,
  type WorkspaceProvider,
  WorkspaceUnavailableError,
} from '@baton/subagents'
import type { Isolation } from '../plan'

export type TaskWorkspace = {
  /** The supervisor's workspace. */
  workspace: Workspace
  /** How the task's one sub-agent gets its directory. */
  delegate: 'new' | 'share'
  /** The directory of a browser or display task (where its screenshots are). */
  kindDirectory?: string
  /** Tidies up after the step: a temporary root goes, a task's files under a workspace root stay. */
  remove(): Promise<void>
}

/**
 * Where one `task` step works. No directory is made until the task touches a file, and none
 * is snapshotted unless it wrote one:
 * - without a workspace root, a temporary root of its own; the task's sub-agent gets a new
 *   directory in it (`new`), and the whole root is removed after the step;
 * - with a root and `isolation: workspace`, a directory made for this task alone,
 *   `<root>/.subagents/task-<random>`, which the task works in (`share`): its files stay there
 *   for the caller; a task that wrote nothing leaves nothing behind;
 * - with a root and any other isolation, the root itself, shared.
 *
 * @example
 * const { workspace, delegate, remove } = taskWorkspace({ workspaceRoot: './work', isolation: 'workspace' })
 */
export function taskWorkspace(options: {
  workspaceRoot: string | undefined
  isolation: Isolation
  /** A workspace kind (`browser`, `display`) from `providers` instead of a plain directory. */
  kind?: string
  providers?: Record<string, WorkspaceProvider>
}): TaskWorkspace {
  const { workspaceRoot, isolation } = options
  if (options.kind !== undefined) return kindWorkspace({ ...options, kind: options.kind })
  if (!workspaceRoot) {
    // Made by the sub-agent's first file operation, if any (`<root>/.subagents/sub-1`).
    const root = path.join(tmpdir(), `baton-mal-task-${randomUUID()}`)
    return {
      workspace: createDirectoryWorkspace({ root, createRoot: false }),
      delegate: 'new',
      remove: () => rm(root, { recursive: true, force: true }),
    }
  }
  if (isolation !== 'workspace') {
    return {
      workspace: createDirectoryWorkspace({ root: workspaceRoot }),
      delegate: 'share',
      remove: async () => {},
    }
  }
  // Under the root's `.subagents`, where a task sharing the root neither lists nor snapshots
  // it; a random name, so concurrent tasks, later tasks and later runs never meet.
  const root = path.join(workspaceRoot, SUBAGENTS_DIRECTORY, `task-${randomUUID()}`)
  let making: Promise<void> | undefined
  return {
    workspace: createDirectoryWorkspace({
      root,
      createRoot: false,
      ready: () => {
        making ??= mkdir(root, { recursive: true }).then(() => {})
        return making
      },
    }),
    delegate: 'share',
    // Also when only its own sub-agents made the directory (they are removed with the task).
    remove: () => removeIfEmpty(root),
  }
}

// A task that wrote nothing (but listed its directory, say) leaves no empty directory behind.
async function removeIfEmpty(directory: string): Promise<void> {
  try {
    await rmdir(path.join(directory, SUBAGENTS_DIRECTORY))
  } catch {
    // Not there, or not empty: either way, nothing to tidy.
  }
  try {
    await rmdir(directory)
  } catch {
    // Not empty: the task's files stay for the caller.
  }
}

/**
 * A task's workspace of a provider's kind: always a directory of its own (a browser or a
 * display is never shared between tasks), which the task works in (`share`). Its browser or
 * display ends after the step; its files (screenshots, downloads) stay under a workspace root,
 * and a temporary root is removed.
 */
function kindWorkspace(options: {
  workspaceRoot: string | undefined
  kind: string
  providers?: Record<string, WorkspaceProvider>
}): TaskWorkspace {
  const providers = options.providers ?? {}
  const provider = providers[options.kind] ?? providers[WORKSPACE_ALIASES[options.kind] ?? '']
  if (!provider) {
    throw new UnknownWorkspaceKindError({
      kind: options.kind,
      known: ['directory', ...Object.keys(providers)],
    })
  }
  const reason = provider.unavailableReason?.()
  if (reason !== undefined) throw new WorkspaceUnavailableError({ kind: options.kind, reason })
  const root = options.workspaceRoot
    ? path.join(options.workspaceRoot, SUBAGENTS_DIRECTORY, `task-${randomUUID()}`)
    : path.join(tmpdir(), `baton-mal-task-${randomUUID()}`)
  // A provider is promised a directory that exists.
  mkdirSync(root, { recursive: true })
  const parent = createDirectoryWorkspace({ root })
  const workspace = provider.create({ id: 'task', directory: root, parent })
  return {
    workspace,
    delegate: 'share',
    kindDirectory: root,
    remove: async () => {
      await workspace.dispose?.()
      if (options.workspaceRoot) await removeIfEmpty(root)
      else await rm(root, { recursive: true, force: true })
    },
  }
}
