import { execFile } from 'node:child_process'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export type Tmpfs = {
  /** The mounted folder. */
  dir: string
  /** Writes a filler file until the file system has no space left. */
  fill(): Promise<void>
  /** Removes the filler: the space is back. */
  free(): Promise<void>
  /** Remounts it read-only (or read-write again). */
  remount(mode: 'ro' | 'rw'): Promise<void>
  /** Unmounts it (lazily if something still holds it) and removes the folder. */
  unmount(): Promise<void>
}

/**
 * Mounts a small tmpfs in a fresh temp folder (a real file system that fills up or goes
 * read-only), or undefined where mounting is not permitted (not root, no CAP_SYS_ADMIN).
 *
 * @example
 * const disk = await mountTmpfs({ sizeMb: 32 })
 * await disk?.fill()
 * await disk?.unmount()
 */
export async function mountTmpfs(options: { sizeMb: number }): Promise<Tmpfs | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-tmpfs-'))
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${options.sizeMb}m`, 'tmpfs', dir])
  } catch {
    await rm(dir, { recursive: true, force: true })
    return undefined
  }
  const filler = path.join(dir, 'filler')
  let mounted = true
  return {
    dir,
    async fill() {
      const file = await open(filler, 'a')
      const chunk = Buffer.alloc(1 << 20, 7)
      try {
        for (;;) await file.write(chunk)
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error
      } finally {
        await file.close()
      }
      // The last pages a partial write left free.
      const small = await open(filler, 'a')
      try {
        for (;;) await small.write(Buffer.alloc(512, 7))
      } catch {
        // Full.
      } finally {
        await small.close()
      }
    },
    async free() {
      await rm(filler, { force: true })
    },
    async remount(mode) {
      await run('mount', ['-o', `remount,${mode}`, dir])
    },
    async unmount() {
      if (!mounted) return
      mounted = false
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]))
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Whether this machine lets the tests mount a tmpfs (tried once, at once undone). */
export async function canMountTmpfs(): Promise<boolean> {
  const probe = await mountTmpfs({ sizeMb: 1 })
  await probe?.unmount()
  return probe !== undefined
}
