import { type ChildProcess, spawn } from 'node:child_process'
import { lstat, mkdir, readdir, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { stopChild } from '@baton/testing/processes'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempRoot } from '../supervisor/__fixtures__/helpers'
import { createDirectoryWorkspace } from './create-directory-workspace'

const TRIES = 3000

// Swaps `d` between a real folder and a symlink to `outside` as fast as it can.
const SWAPPER = `
const fs = require('node:fs')
const [d, parked, outside] = process.argv.slice(1)
for (;;) {
  try { fs.renameSync(d, parked); fs.symlinkSync(outside, d); fs.unlinkSync(d); fs.renameSync(parked, d) } catch {}
}`

let root: string
let remove: () => Promise<void>
let swapper: ChildProcess | undefined
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
async function stopSwapper(): Promise<void> {
  if (swapper) await stopChild(swapper, { signal: 'SIGKILL' })
  swapper = undefined
}

// The swapper may have been stopped mid-swap (and a write may have made a new `d` while it
// was away): make sure `d` is a real folder again.
async function restore(folder: string): Promise<void> {
  const info = await lstat(folder).catch(() => undefined)
  if (info?.isDirectory()) return
  if (info) await unlink(folder)
  await mkdir(folder)
}

afterEach(async () => {
  await stopSwapper()
  await remove()
})

describe('createDirectoryWorkspace under a symlink race', () => {
  it('never reads or writes outside while a folder on the way is swapped for a symlink', async () => {
    const work = path.join(root, 'work')
    const outside = path.join(root, 'outside')
    await mkdir(path.join(work, 'd'), { recursive: true })
    await mkdir(outside)
    await writeFile(path.join(outside, 'secret.txt'), 'SECRET')
    await writeFile(path.join(work, 'd', 'secret.txt'), 'inside')
    const workspace = createDirectoryWorkspace({ root: work })
    swapper = spawn(
      process.execPath,
      ['-e', SWAPPER, path.join(work, 'd'), path.join(work, 'parked'), outside],
      { stdio: 'ignore' },
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    let secretsRead = 0
    let insideReads = 0
    let writes = 0
    for (let index = 0; index < TRIES / 2; index += 1) {
      try {
        await workspace.writeFile(`d/w-${index}.txt`, 'x')
        writes += 1
      } catch {
        // Refused or not there mid-swap: that is allowed, an escape is not.
      }
      try {
        const content = await workspace.readFile('d/secret.txt')
        if (content === 'SECRET') secretsRead += 1
        else insideReads += 1
      } catch {
        // As above.
      }
    }
    await stopSwapper()
    const escaped = (await readdir(outside)).filter((name) => name.startsWith('w-'))
    expect(
      { escaped: escaped.length, secretsRead },
      `${writes} writes and ${insideReads} reads went through during the race`,
    ).toEqual({ escaped: 0, secretsRead: 0 })
    // Liveness: once the folder stays put, reads and writes through it go through. (How many
    // did during the race depends on how the two processes were scheduled.)
    await restore(path.join(work, 'd'))
    await workspace.writeFile('d/after.txt', 'after')
    expect(await workspace.readFile('d/after.txt')).toBe('after')
    expect(await workspace.listFiles('d')).toContain(path.join('d', 'after.txt'))
  }, 60_000)

  it('refuses a name longer than the file system takes with a workspace error', async () => {
    const workspace = createDirectoryWorkspace({ root })
    const name = 'n'.repeat(300)
    await expect(workspace.writeFile(name, 'x')).rejects.toMatchObject({
      code: 'WORKSPACE_PATH_INVALID',
      details: { path: name },
    })
    await expect(workspace.readFile(`a/${name}/b.txt`)).rejects.toMatchObject({
      code: 'WORKSPACE_PATH_INVALID',
    })
    await expect(workspace.listFiles(name)).rejects.toMatchObject({
      code: 'WORKSPACE_PATH_INVALID',
    })
    // Liveness: a name of 255 bytes is fine.
    await workspace.writeFile('m'.repeat(255), 'ok')
    expect(await workspace.readFile('m'.repeat(255))).toBe('ok')
  })
})
