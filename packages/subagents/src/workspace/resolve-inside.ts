import { lstat, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { checkWorkspacePath } from './check-workspace-path'
import { WorkspaceEscapeError } from './workspace-errors'

/**
 * Resolves a relative `file` inside `root`, refusing absolute paths, `..` that climbs out,
 * and symlinks (anywhere on the way) that point outside `root`. A check by name: the path may
 * change before it is used, so the workspace's own file operations use `openInside`.
 *
 * @example
 * await resolveInside('/srv/work/sub-1', 'notes/todo.md') // '/srv/work/sub-1/notes/todo.md'
 * await resolveInside('/srv/work/sub-1', '../secret') // throws WorkspaceEscapeError
 */
export async function resolveInside(root: string, file: string): Promise<string> {
  const refuse = (reason: string) => new WorkspaceEscapeError({ path: file, root, reason })
  checkWorkspacePath(root, file)
  const target = path.resolve(root, file)
  const realRoot = await realpath(root)
  // The target may not exist yet (write_file): the nearest existing ancestor decides where
  // it would really land, which catches a symlinked directory on the way.
  const real = await realpathOfNearestExisting(target)
  if (!isWithin(realRoot, real)) throw refuse('a symlink points out of the workspace')
  return target
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

async function realpathOfNearestExisting(target: string, hops = 0): Promise<string> {
  const missing: string[] = []
  let current = target
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse())
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      // A dangling symlink: where it points decides, or a write would follow it out.
      const link = await readLinkOrUndefined(current)
      if (link !== undefined && hops < 32) {
        const pointed = path.resolve(path.dirname(current), link)
        return realpathOfNearestExisting(path.join(pointed, ...missing.reverse()), hops + 1)
      }
      const parent = path.dirname(current)
      if (parent === current) throw error
      missing.push(path.basename(current))
      current = parent
    }
  }
}

async function readLinkOrUndefined(file: string): Promise<string | undefined> {
  try {
    return (await lstat(file)).isSymbolicLink() ? await readlink(file) : undefined
  } catch {
    return undefined
  }
}
