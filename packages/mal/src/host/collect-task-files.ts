import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'

/** A file a task left in its directory, read before the directory goes. */
export type HostFile = {
  /** Its path in the task's directory, `/`-separated (`screenshots/screenshot-1.png`). */
  path: string
  mediaType: string
  data: Uint8Array
}

/** At most this many screenshots are kept from one task (the first ones, by name). */
export const MAX_TASK_FILES = 20
/** A screenshot larger than this is left out. */
export const MAX_TASK_FILE_BYTES = 5 * 1024 * 1024

/**
 * The screenshots a task's browser or display workspace took (PNGs in a `screenshots` folder,
 * its own or a sub-agent's below it), at most `MAX_TASK_FILES` of at most
 * `MAX_TASK_FILE_BYTES` each. Symbolic links are not followed: only files the workspace wrote.
 *
 * @example
 * const files = await collectTaskFiles('/tmp/baton-mal-task-…') // [{ path: 'screenshots/screenshot-1.png', ... }]
 */
export async function collectTaskFiles(directory: string): Promise<HostFile[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => [])
  const screenshots = entries
    .filter(
      (entry) =>
        entry.isFile() &&
        entry.name.toLowerCase().endsWith('.png') &&
        path.basename(entry.parentPath) === 'screenshots',
    )
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  const files: HostFile[] = []
  for (const relative of screenshots) {
    if (files.length >= MAX_TASK_FILES) break
    const absolute = path.join(directory, relative)
    try {
      if ((await stat(absolute)).size > MAX_TASK_FILE_BYTES) continue
      const data = await readFile(absolute)
      files.push({ path: relative.split(path.sep).join('/'), mediaType: 'image/png', data })
    } catch {
      // Gone since the listing: not kept.
    }
  }
  return files
}
