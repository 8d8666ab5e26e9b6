import { randomUUID } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { BatonError } from '@baton/core'

/** The lock's file, in the embedded database's folder. */
export const LOCK_FILE = 'baton.lock'

/** What a lock file says of the process that holds the folder. */
type Holder = { pid: number; host: string; since: string; what: string; id: string }

/** The embedded database's folder is held by another live process (the message says which). */
export class DataFolderInUseError extends BatonError {
  override name = 'DataFolderInUseError'
  readonly folder: string
  constructor(folder: string, holder: Holder) {
    const lockFile = path.join(folder, LOCK_FILE)
    super(
      'DATA_FOLDER_IN_USE',
      `The data folder ${folder} is in use by ${holder.what} (pid ${holder.pid} on ${holder.host}, since ${holder.since}). Two processes on one embedded database would lose each other's writes: stop it first, or use another BATON_DATA_DIR. If no such process runs, delete ${lockFile}.`,
      { details: { folder, lockFile, pid: holder.pid, host: holder.host, since: holder.since } },
    )
    this.folder = folder
  }
}

export type DataFolderLock = {
  /** Gives the folder up: the lock file is removed if it is still this lock's. */
  release(): Promise<void>
}

// The locks this process takes or holds, by id, with their files. A lock with this process's
// pid and one of these ids is live (a second open here is refused like another process's); with
// another id, it was left by an earlier process that had the same pid. What is held when the
// process exits is given up then (a start that failed after the open).
const ours = new Map<string, string>()
let releasesAtExit = false

/**
 * Takes the embedded database's folder for this process, or throws `DataFolderInUseError`
 * naming the live process that has it. PGlite keeps its pages in its own memory and writes them
 * back as it pleases, so a second process on the same folder (a second `pnpm start` on another
 * `PORT`, the `keys` command beside a running server) would silently overwrite the first one's
 * acknowledged writes. A lock left by a process that is gone (killed, or its container
 * restarted: the same pid as this process or its parent) is taken over.
 *
 * @example
 * const lock = await lockDataFolder('./.baton/pglite', 'a Baton server')
 * // … open PGlite, serve …
 * await lock.release()
 */
export async function lockDataFolder(folder: string, what: string): Promise<DataFolderLock> {
  const file = path.join(folder, LOCK_FILE)
  const id = randomUUID()
  const mine: Holder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    what,
    id,
  }
  const text = `${JSON.stringify(mine)}\n`
  // Written whole beside the lock, then linked to its name: a reader never sees half a lock,
  // and of two processes linking at once, one gets EEXIST.
  const draft = `${file}.${id}`
  ours.set(id, file)
  if (!releasesAtExit) {
    releasesAtExit = true
    process.once('exit', () => {
      for (const [lockId, lockFile] of ours) {
        if (ownedBy(lockFile, lockId)) unlinkQuietly(lockFile)
      }
    })
  }
  try {
    await writeFile(draft, text)
    for (let attempt = 0; ; attempt++) {
      try {
        await create(draft, file, text)
        break
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST' || attempt >= 5) throw error
      }
      const found = await readHolder(file)
      if (!found) continue
      if (found.holder && isAlive(found.holder)) {
        throw new DataFolderInUseError(folder, found.holder)
      }
      await takeOver(file, found.text)
    }
  } catch (error) {
    ours.delete(id)
    throw error
  } finally {
    await unlink(draft).catch(() => {})
  }
  return {
    async release() {
      if (!ours.delete(id)) return
      const now = await readFile(file, 'utf8').catch(() => undefined)
      if (now !== undefined && parse(now)?.id === id) await unlink(file).catch(() => {})
    },
  }
}

/** Creates `file` with `text` (from `draft`), or fails with EEXIST when it is there. */
async function create(draft: string, file: string, text: string): Promise<void> {
  try {
    await link(draft, file)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    // A file system without hard links: created and written in one go, nearly as whole.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error
    await writeFile(file, text, { flag: 'wx' })
  }
}

/**
 * The lock file's text and its holder (undefined when it cannot be read as one, after a second
 * look: a lock being written is read whole a moment later); undefined when there is no file.
 */
async function readHolder(file: string): Promise<{ text: string; holder?: Holder } | undefined> {
  for (let look = 0; ; look++) {
    const text = await readFile(file, 'utf8').catch(() => undefined)
    if (text === undefined) return undefined
    const holder = parse(text)
    if (holder || look > 0) return holder ? { text, holder } : { text }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function parse(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>
    return typeof value.pid === 'number' && typeof value.id === 'string'
      ? (value as Holder)
      : undefined
  } catch {
    return undefined
  }
}

/** Whether the process a lock names still runs (as far as this machine can tell). */
function isAlive(holder: Holder): boolean {
  if (holder.pid === process.pid) return ours.has(holder.id)
  // A restarted container gives its processes the same pids again: the one that wrote the lock
  // may have had this process's parent's.
  if (holder.pid === process.ppid) return false
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as { code?: unknown }).code !== 'ESRCH'
  }
}

/**
 * Removes a dead process's lock, unless another process took it over meanwhile: the lock is
 * moved aside (one mover wins), and put back if what was moved is not what was read.
 */
async function takeOver(file: string, found: string): Promise<void> {
  const aside = `${file}.stale-${randomUUID()}`
  try {
    await rename(file, aside)
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return
    throw error
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined)
  if (moved !== found && moved !== undefined) await link(aside, file).catch(() => {})
  await unlink(aside).catch(() => {})
}

function ownedBy(file: string, id: string): boolean {
  try {
    // Synchronous: this runs as the process exits.
    return parse(readFileSync(file, 'utf8'))?.id === id
  } catch {
    return false
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // Gone already.
  }
}
