import { existsSync } from 'node:fs'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { runTask } from './run-task'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

describe('runTask', () => {
  it('runs one bounded task and reports it, leaving nothing behind', async () => {
    const budget = createBudget({ calls: 10 })
    const report = await runTask({
      agent: makeAgent(),
      budget,
      workspace: { kind: 'directory', root },
      task: `Write it ${directive('write_file', { path: 'out.md', content: 'done' })}`,
      delegate: { budget: { calls: 3 } },
    })
    expect(report).toMatchObject({ status: 'done', files: ['out.md'], modelCalls: 2 })
    expect(budget.spent().calls).toBe(2)
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
  })

  it('cancels a task that asks a question, and one whose signal aborts', async () => {
    const asking = await runTask({
      agent: makeAgent(),
      budget: createBudget({ calls: 10 }),
      workspace: { kind: 'directory', root },
      task: `Stuck ${directive('ask_caller', { question: 'Which one?' })}`,
    })
    expect(asking.status).toBe('cancelled')
    const controller = new AbortController()
    controller.abort()
    const aborted = await runTask({
      agent: makeAgent(),
      budget: createBudget({ calls: 10 }),
      workspace: { kind: 'directory', root },
      task: 'Anything',
      signal: controller.signal,
    })
    expect(aborted.status).toBe('cancelled')
  })
})
