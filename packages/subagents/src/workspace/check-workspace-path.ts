import path from 'node:path'
import { InvalidWorkspacePathError, WorkspaceEscapeError } from './workspace-errors'

/** The longest name one directory entry may have on Linux, macOS and Windows file systems. */
export const MAX_NAME_BYTES = 255
/** Linux's `PATH_MAX` less the terminating NUL. */
export const MAX_PATH_BYTES = 4095

/**
 * Checks a relative `file` against `root` without touching the disk, and returns its parts
 * below the root: refuses NUL bytes, absolute paths and `..` that climbs out
 * (`WorkspaceEscapeError`), and names or paths too long for the file system
 * (`InvalidWorkspacePathError`), so neither reaches the caller as a raw `ENAMETOOLONG`.
 *
 * @example
 * checkWorkspacePath('/srv/work', 'notes/../todo.md') // ['todo.md']
 * checkWorkspacePath('/srv/work', '../secret') // throws WorkspaceEscapeError
 */
export function checkWorkspacePath(root: string, file: string): string[] {
  const refuse = (reason: string) => new WorkspaceEscapeError({ path: file, root, reason })
  if (file.includes('\0')) throw refuse('it contains a NUL byte')
  if (path.isAbsolute(file) || /^[a-zA-Z]:[\\/]/.test(file)) {
    throw refuse('absolute paths are refused')
  }
  const target = path.resolve(root, file)
  const relative = path.relative(path.resolve(root), target)
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw refuse('".." climbs out of the workspace')
  }
  const parts = relative === '' ? [] : relative.split(path.sep)
  const long = parts.find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)
  if (long !== undefined) {
    throw new InvalidWorkspacePathError({
      path: file,
      root,
      reason: `the name "${long.slice(0, 20)}…" is ${Buffer.byteLength(long)} bytes long (at most ${MAX_NAME_BYTES})`,
    })
  }
  if (Buffer.byteLength(target) > MAX_PATH_BYTES) {
    throw new InvalidWorkspacePathError({
      path: file,
      root,
      reason: `the full path is ${Buffer.byteLength(target)} bytes long (at most ${MAX_PATH_BYTES})`,
    })
  }
  return parts
}
