import { readFile, symlink } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempRoot } from '../supervisor/__fixtures__/helpers'
import { createDirectoryWorkspace } from './create-directory-workspace'
import { createFileTools } from './create-file-tools'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

describe('createDirectoryWorkspace', () => {
  it('writes, reads and lists files below its root', async () => {
    const workspace = createDirectoryWorkspace({ root: path.join(root, 'work') })
    await workspace.writeFile('docs/a.md', 'A')
    await workspace.writeFile('b.txt', 'B')
    expect(await workspace.readFile('docs/a.md')).toBe('A')
    expect(await workspace.listFiles()).toEqual(['b.txt', 'docs/a.md'])
    expect(await workspace.listFiles('docs')).toEqual(['docs/a.md'])
  })

  it('refuses its own operations while lent, and gives them back on release', async () => {
    const workspace = createDirectoryWorkspace({ root })
    const lease = workspace.lend('sub-1')
    expect(workspace.holder).toBe('sub-1')
    await expect(workspace.writeFile('a.txt', 'caller')).rejects.toMatchObject({
      code: 'WORKSPACE_BUSY',
      details: { holder: 'sub-1' },
    })
    expect(() => workspace.lend('sub-2')).toThrow(/held by sub-agent "sub-1"/)
    await lease.writeFile('a.txt', 'child')
    lease.release()
    await expect(lease.writeFile('a.txt', 'late')).rejects.toMatchObject({ code: 'WORKSPACE_BUSY' })
    await workspace.writeFile('a.txt', 'caller again')
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('caller again')
  })

  it('refuses a write through a symlinked directory that points out', async () => {
    const workspace = createDirectoryWorkspace({ root: path.join(root, 'work') })
    await symlink(root, path.join(root, 'work', 'out'))
    await expect(workspace.writeFile('out/escaped.txt', 'x')).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
    await expect(readFile(path.join(root, 'escaped.txt'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('createFileTools', () => {
  it('gives read_file, write_file and list_files that cannot leave the workspace', async () => {
    const tools = createFileTools(createDirectoryWorkspace({ root }))
    const options = { toolCallId: 'call-1', messages: [] }
    await tools.write_file?.execute?.({ path: 'x.txt', content: 'hello' }, options)
    await expect(tools.read_file?.execute?.({ path: 'x.txt' }, options)).resolves.toEqual({
      path: 'x.txt',
      content: 'hello',
    })
    await expect(tools.list_files?.execute?.({}, options)).resolves.toEqual({ files: ['x.txt'] })
    await expect(
      tools.read_file?.execute?.({ path: '/etc/hostname' }, options),
    ).rejects.toMatchObject({
      code: 'WORKSPACE_ESCAPE',
    })
  })
})
