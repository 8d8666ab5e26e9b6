import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

describe('createSupervisor: a shared workspace is never read back to report its files', () => {
  it('lists exactly what its file tools wrote, whatever else changes in the shared tree', async () => {
    // The caller's tree already has work in it (a project, say).
    await mkdir(path.join(root, 'src', 'deep'), { recursive: true })
    await writeFile(path.join(root, 'src', 'deep', 'old.ts'), 'old')
    const workspace = createDirectoryWorkspace({ root })
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace,
      budget: createBudget({ calls: 10 }),
    })
    const id = supervisor.delegate(
      `[[sleep:1500]] ${directive('write_file', { path: './notes/../shared.md', content: 'mine' })}`,
      { workspace: 'share' },
    )
    // Something outside the sub-agent's tools changes the tree meanwhile: not its work. A
    // report built from two snapshots of the tree would list it.
    await new Promise((resolve) => setTimeout(resolve, 500))
    await writeFile(path.join(root, 'src', 'deep', 'old.ts'), 'changed by someone else')
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', directory: root, files: ['shared.md'] })
  })

  it('counts the writes of a sub-agent it lent the workspace to as its own', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 20 }),
    })
    const grandchild = directive('write_file', { path: 'deep/by-grandchild.md', content: 'x' })
    const id = supervisor.delegate(
      `${directive('write_file', { path: 'by-child.md', content: 'y' })}${directive('delegate_agent', { task: grandchild, workspace: 'share' })}${directive('wait_agents')}`,
    )
    const report = await waitFor(async () => {
      const reports = await supervisor.waitAgents([id])
      return reports?.[id]?.status === 'done' ? reports[id] : undefined
    })
    expect(report.files).toEqual(['by-child.md', path.join('deep', 'by-grandchild.md')])
    expect(report.directory).toBe(path.join(root, '.subagents', id))
  })
})
