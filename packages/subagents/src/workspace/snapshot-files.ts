import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'

/** File path (relative) → a fingerprint of its size and modification time. */
export type FileSnapshot = Map<string, string>

/** Where sub-agents of sub-agents keep their directories; not the child's own work. */
export const SUBAGENTS_DIRECTORY = '.subagents'

/**
 * Fingerprints the files below `root`, leaving out the nested sub-agent directories.
 *
 * @example
 * const before = await snapshotFiles(root)
 * // ... the child works ...
 * changedFiles(before, await snapshotFiles(root)) // ['report.md']
 */
export async function snapshotFiles(root: string): Promise<FileSnapshot> {
  const snapshot: FileSnapshot = new Map()
  let entries: Awaited<ReturnType<typeof listEntries>>
  try {
    entries = await listEntries(root)
  } catch {
    return snapshot
  }
  await Promise.all(
    entries.map(async (entry) => {
      const absolute = path.join(entry.parentPath, entry.name)
      const relative = path.relative(root, absolute)
      if (relative.split(path.sep)[0] === SUBAGENTS_DIRECTORY) return
      try {
        const info = await stat(absolute)
        snapshot.set(relative, `${info.size}:${info.mtimeMs}`)
      } catch {
        // Deleted between the listing and the stat: it is not there.
      }
    }),
  )
  return snapshot
}

function listEntries(root: string) {
  return readdir(root, { recursive: true, withFileTypes: true }).then((entries) =>
    entries.filter((entry) => entry.isFile()),
  )
}

/**
 * The files created or changed between two snapshots, sorted.
 *
 * @example
 * changedFiles(new Map(), new Map([['a.txt', '1:2']])) // ['a.txt']
 */
export function changedFiles(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  return [...after]
    .filter(([file, fingerprint]) => before.get(file) !== fingerprint)
    .map(([file]) => file)
    .sort()
}
