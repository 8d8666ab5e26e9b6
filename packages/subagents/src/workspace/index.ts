export { checkWorkspacePath, MAX_NAME_BYTES, MAX_PATH_BYTES } from './check-workspace-path'
export {
  type CreateDirectoryWorkspaceOptions,
  createDirectoryWorkspace,
} from './create-directory-workspace'
export { createFileTools } from './create-file-tools'
export { type CreateHeldWorkspaceOptions, createHeldWorkspace } from './create-held-workspace'
export { type OpenedInside, type OpenInsideMode, openInside } from './open-inside'
export {
  childWithArgument,
  isProcessAlive,
  processTree,
  proportionalBytes,
  residentBytes,
} from './process-tree'
export { resolveInside } from './resolve-inside'
export { runBounded } from './run-bounded'
export {
  changedFiles,
  type FileSnapshot,
  SUBAGENTS_DIRECTORY,
  snapshotFiles,
} from './snapshot-files'
export { groupGone, signalGroup, stopGroup } from './stop-group'
export type {
  LendOptions,
  Workspace,
  WorkspaceFiles,
  WorkspaceLease,
  WorkspaceProvider,
  WorkspaceSpec,
} from './types'
export {
  InvalidWorkspacePathError,
  UnknownWorkspaceKindError,
  WorkspaceBusyError,
  WorkspaceEscapeError,
  WorkspaceToolTimeoutError,
  WorkspaceUnavailableError,
} from './workspace-errors'
export {
  BROWSER_TOOL_NAMES,
  DISPLAY_TOOL_NAMES,
  FILE_TOOL_NAMES,
  WORKSPACE_ALIASES,
  WORKSPACE_TOOL_NAMES,
  workspaceKindTools,
} from './workspace-kind-tools'
