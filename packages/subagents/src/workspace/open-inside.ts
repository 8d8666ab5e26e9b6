import { constants, existsSync } from 'node:fs'
import { type FileHandle, mkdir, open, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { checkWorkspacePath } from './check-workspace-path'
import { resolveInside } from './resolve-inside'
import { InvalidWorkspacePathError, WorkspaceEscapeError } from './workspace-errors'

/** What an open is for: a file to read, a file to write (created, with its folders), a folder. */
export type OpenInsideMode = 'read' | 'write' | 'directory'

/** An open file or folder of a workspace, and a path that reaches exactly what was opened. */
export type OpenedInside = {
  handle: FileHandle
  /** `/proc/self/fd/<fd>` where descriptors can be located, else the checked path. */
  location: string
}

const DESCRIPTORS = '/proc/self/fd'
const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY, O_NOFOLLOW } = constants
let descriptorsLocatable: boolean | undefined

/**
 * Opens `file` below `root` so that what is opened is known to be inside, even while another
 * process swaps a folder on the way for a symlink that points out. Each folder is opened
 * through the descriptor of the one before (`/proc/self/fd/<fd>/<name>`, Linux's `openat`),
 * and every descriptor is checked for where it really is before it is used; the file a write
 * creates is opened with `O_NOFOLLOW`, so nothing is created or truncated through a symlink.
 * Elsewhere (no `/proc`), the path is checked before and after it is opened.
 *
 * @example
 * const { handle } = await openInside('/srv/work/sub-1', 'notes/todo.md', 'read')
 * try { await handle.readFile('utf8') } finally { await handle.close() }
 */
export async function openInside(
  root: string,
  file: string,
  mode: OpenInsideMode,
): Promise<OpenedInside> {
  const parts = checkWorkspacePath(root, file)
  if (mode !== 'directory' && parts.length === 0) {
    throw new InvalidWorkspacePathError({
      path: file,
      root,
      reason: 'it names the workspace itself',
    })
  }
  try {
    return canLocateDescriptors()
      ? await openThroughDescriptors({ root, file, parts, mode, realRoot: await realpath(root) })
      : await openByCheckedPath(root, file, mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENAMETOOLONG') {
      throw new InvalidWorkspacePathError({ path: file, root, reason: 'the path is too long' })
    }
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new WorkspaceEscapeError({
        path: file,
        root,
        reason: 'the file is a symlink, and a write does not follow one',
      })
    }
    throw error
  }
}

async function openThroughDescriptors(options: {
  root: string
  file: string
  parts: string[]
  mode: OpenInsideMode
  realRoot: string
}): Promise<OpenedInside> {
  const { parts, mode, realRoot } = options
  const assertInside = async (handle: FileHandle) => {
    const real = await readlink(`${DESCRIPTORS}/${handle.fd}`)
    if (!isWithin(realRoot, real)) {
      throw new WorkspaceEscapeError({
        path: options.file,
        root: options.root,
        reason: 'a symlink points out of the workspace',
      })
    }
  }
  const folders = mode === 'directory' ? parts : parts.slice(0, -1)
  let folder: FileHandle | undefined = await open(realRoot, O_RDONLY | O_DIRECTORY)
  try {
    for (const name of folders) {
      const next = await openFolderIn(folder, name, mode === 'write')
      await folder.close()
      folder = next
      await assertInside(folder)
    }
    if (mode === 'directory') {
      const opened = { handle: folder, location: `${DESCRIPTORS}/${folder.fd}` }
      folder = undefined
      return opened
    }
    const entry = `${DESCRIPTORS}/${folder.fd}/${parts.at(-1)}`
    const handle =
      mode === 'read'
        ? await open(entry, O_RDONLY)
        : await open(entry, O_WRONLY | O_CREAT | O_NOFOLLOW, 0o666)
    try {
      await assertInside(handle)
    } catch (error) {
      await handle.close()
      throw error
    }
    return { handle, location: `${DESCRIPTORS}/${handle.fd}` }
  } finally {
    await folder?.close()
  }
}

async function openFolderIn(
  folder: FileHandle,
  name: string,
  create: boolean,
): Promise<FileHandle> {
  const entry = `${DESCRIPTORS}/${folder.fd}/${name}`
  try {
    return await open(entry, O_RDONLY | O_DIRECTORY)
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  // mkdir never follows a symlink in the last place, so it cannot create anything outside.
  await mkdir(entry).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return open(entry, O_RDONLY | O_DIRECTORY)
}

async function openByCheckedPath(
  root: string,
  file: string,
  mode: OpenInsideMode,
): Promise<OpenedInside> {
  const target = await resolveInside(root, file)
  if (mode === 'write') {
    await mkdir(path.dirname(target), { recursive: true })
    // Checked again after mkdir: a directory created on the way must not be a way out.
    await resolveInside(root, file)
  }
  const flags =
    mode === 'write' ? O_WRONLY | O_CREAT | O_NOFOLLOW : mode === 'directory' ? O_RDONLY : O_RDONLY
  const handle = await open(target, flags, 0o666)
  return { handle, location: target }
}

function canLocateDescriptors(): boolean {
  descriptorsLocatable ??= process.platform === 'linux' && existsSync(DESCRIPTORS)
  return descriptorsLocatable
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}
