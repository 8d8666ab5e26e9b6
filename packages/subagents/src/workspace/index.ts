export {
  type CreateDirectoryWorkspaceOptions,
  createDirectoryWorkspace,
} from './create-directory-workspace'
export { createFileTools } from './create-file-tools'
export { resolveInside } from './resolve-inside'
export {
  changedFiles,
  type FileSnapshot,
  SUBAGENTS_DIRECTORY,
  snapshotFiles,
} from './snapshot-files'
export type {
  Workspace,
  WorkspaceFiles,
  WorkspaceLease,
  WorkspaceProvider,
  WorkspaceSpec,
} from './types'
export {
  UnknownWorkspaceKindError,
  WorkspaceBusyError,
  WorkspaceEscapeError,
  WorkspaceUnavailableError,
} from './workspace-errors'
