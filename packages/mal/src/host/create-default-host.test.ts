import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { runPlan } from '../run'

let workspaceRoot: string
beforeAll(async () => {
  workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-host-'))
})
afterAll(async () => {
  await rm(workspaceRoot, { recursive: true, force: true })
})

const registry = createStaticRegistry([agentRecord()])
const task = (saveAs: string, persona: string) => ({
  op: 'task',
  saveAs,
  agentWallet: analystWallet,
  prompt: 'Work',
  persona,
  isolation: 'workspace',
})
const write = (file: string) => `[[tool:write_file {"path":"${file}","content":"x"}]]`

describe('createDefaultHost', () => {
  it('gives every isolated task a directory of its own under a workspace root', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'both',
            branches: [
              { id: 'one', steps: [task('a', write('one.txt'))] },
              { id: 'two', steps: [task('b', write('two.txt'))] },
            ],
          },
          task('listing', '[[tool:list_files {}]]'),
          { op: 'stop', output: '{{listing}}' },
        ],
      },
      { registry, workspaceRoot },
    )
    expect(result.error).toBeUndefined()
    expect(result.status).toBe('done')
    expect(result.output).not.toMatch(/one\.txt|two\.txt/)
    // The two writers' files stay, each in a directory of its own.
    const dirs = await readdir(path.join(workspaceRoot, '.subagents'))
    expect(dirs.filter((name) => name.startsWith('task-')).length).toBeGreaterThanOrEqual(2)
  })

  it('gives a second run with the same root fresh directories too', async () => {
    const plan = {
      steps: [task('listing', '[[tool:list_files {}]]'), { op: 'stop', output: '{{listing}}' }],
    }
    await runPlan({ steps: [task('w', write('left-over.txt'))] }, { registry, workspaceRoot })
    const result = await runPlan(plan, { registry, workspaceRoot })
    expect(result.status).toBe('done')
    expect(result.output).not.toMatch(/left-over\.txt/)
  })
})
