import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveInside } from './resolve-inside'

let base: string
let root: string

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'baton-resolve-'))
  root = path.join(base, 'workspace')
  await mkdir(path.join(root, 'notes'), { recursive: true })
  await writeFile(path.join(base, 'secret.txt'), 'outside')
})
afterEach(() => rm(base, { recursive: true, force: true }))

describe('resolveInside', () => {
  it('resolves a relative path inside the workspace, existing or not', async () => {
    await expect(resolveInside(root, 'notes/todo.md')).resolves.toBe(
      path.join(root, 'notes/todo.md'),
    )
    await expect(resolveInside(root, 'new/deep/file.txt')).resolves.toBe(
      path.join(root, 'new/deep/file.txt'),
    )
    await expect(resolveInside(root, 'notes/../a.txt')).resolves.toBe(path.join(root, 'a.txt'))
  })

  it('refuses ".." that climbs out with WORKSPACE_ESCAPE', async () => {
    await expect(resolveInside(root, '../secret.txt')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
      details: { path: '../secret.txt' },
    })
    await expect(resolveInside(root, 'notes/../../secret.txt')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
  })

  it('refuses absolute paths, even ones inside the workspace', async () => {
    await expect(resolveInside(root, path.join(base, 'secret.txt'))).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
    await expect(resolveInside(root, path.join(root, 'notes'))).rejects.toThrow(/absolute/)
  })

  it('refuses a symlinked file or directory that points out', async () => {
    await symlink(path.join(base, 'secret.txt'), path.join(root, 'link.txt'))
    await symlink(base, path.join(root, 'up'))
    await expect(resolveInside(root, 'link.txt')).rejects.toThrow(/symlink/)
    await expect(resolveInside(root, 'up/secret.txt')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
    // A file that does not exist yet, below a symlinked directory, would land outside too.
    await expect(resolveInside(root, 'up/new/file.txt')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
  })

  it('refuses a dangling symlink that points out (a write would follow it)', async () => {
    await symlink(path.join(base, 'not-yet.txt'), path.join(root, 'dangling'))
    await expect(resolveInside(root, 'dangling')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
  })

  it('accepts a symlink that stays inside', async () => {
    await writeFile(path.join(root, 'notes', 'a.md'), 'a')
    await symlink(path.join(root, 'notes'), path.join(root, 'shortcut'))
    await expect(resolveInside(root, 'shortcut/a.md')).resolves.toBe(
      path.join(root, 'shortcut/a.md'),
    )
  })
})
