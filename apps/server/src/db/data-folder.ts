import { randomUUID } from 'node:crypto'
import { mkdir, open, unlink } from 'node:fs/promises'
import path from 'node:path'
import { BatonError } from '@baton/core'
import { problemWithin } from '../health/problem-within'

/** What an operating system's error code means for a folder, in words. */
const causes: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'a part of its path does not exist',
}

/** The data folder cannot be used: it cannot be created or written (the cause says why). */
export class DataFolderUnavailableError extends BatonError {
  override name = 'DataFolderUnavailableError'
  readonly folder: string
  constructor(options: { folder: string; errno: string; cause?: unknown }) {
    const reason = causes[options.errno] ?? options.errno
    super(
      'DATA_FOLDER_UNAVAILABLE',
      `The data folder ${options.folder} cannot be used: ${reason} (${options.errno}).`,
      { details: { folder: options.folder, reason, errno: options.errno }, cause: options.cause },
    )
    this.folder = options.folder
  }
}

/**
 * Creates `folder` if needed and checks that a file can be written in it (a few bytes, synced,
 * then removed); a folder that cannot be used throws a `DataFolderUnavailableError` naming it
 * and the cause (no space, read-only, a file in the way).
 *
 * @example
 * await assertWritableFolder('./.baton/pglite')
 */
export async function assertWritableFolder(folder: string): Promise<void> {
  const probe = path.join(folder, `.write-check-${randomUUID()}`)
  try {
    await makeFolder(folder)
    const file = await open(probe, 'wx')
    try {
      // A full tmpfs or disk refuses the first page; an empty file would still be created.
      await file.write(Buffer.alloc(4096, 1))
      await file.sync()
    } finally {
      await file.close()
    }
  } catch (error) {
    const errno = (error as { code?: unknown }).code
    if (typeof errno !== 'string') throw error
    throw new DataFolderUnavailableError({ folder, errno, cause: error })
  } finally {
    await unlink(probe).catch(() => {})
  }
}

/**
 * `mkdir -p`, failing with the error of the first folder that cannot be made: a recursive
 * mkdir on a read-only file system reports ENOENT, not EROFS.
 */
async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true })
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error
    const parts = path.resolve(folder).split(path.sep)
    for (let index = 2; index <= parts.length; index++) {
      await mkdir(parts.slice(0, index).join(path.sep)).catch((step: unknown) => {
        if ((step as { code?: unknown }).code !== 'EEXIST') throw step
      })
    }
    throw error
  }
}

/**
 * Why `folder` does not take a write within `timeoutMs` (full, read-only, gone), or undefined
 * when it does.
 *
 * @example
 * const problem = await writableFolderProblem('./.baton/pglite', 2_000)
 */
export function writableFolderProblem(
  folder: string,
  timeoutMs: number,
): Promise<string | undefined> {
  return problemWithin(async () => {
    await assertWritableFolder(folder)
    return undefined
  }, timeoutMs)
}
