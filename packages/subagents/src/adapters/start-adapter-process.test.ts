import { createBudget } from '@baton/core'
import { isAlive } from '@baton/testing/processes'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempRoot, standInAdapter } from '../supervisor/__fixtures__/helpers'
import { startAdapterProcess } from './start-adapter-process'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

const start = (task: object, budget = createBudget({ cost: 1 })) => ({
  budget,
  child: startAdapterProcess({
    adapter: standInAdapter,
    task: JSON.stringify(task),
    directory: root,
    context: { turn: 1 },
    budget,
    wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  }),
})

describe('startAdapterProcess', () => {
  it('runs in the directory, charges usage lines and the rest of the result total', async () => {
    const { budget, child } = start({
      result: 'all done',
      usageEveryMs: 20,
      sleepMs: 150,
      totalCostUsd: 0.5,
      write: 'out.txt',
    })
    const outcome = await child.outcome
    expect(outcome.text).toBe('all done')
    expect(outcome.sessionId).toMatch(/^session-/)
    expect(budget.spent().calls).toBeGreaterThan(0)
    // Usage lines charged 0.001 each; the result's total tops it up to exactly 0.5.
    expect(budget.spent().costUsd).toBeCloseTo(0.5, 9)
  })

  it('kills it and rejects with BUDGET_EXCEEDED when its usage passes the budget', async () => {
    const { budget, child } = start(
      { usageEveryMs: 10, costUsd: 0.01, sleepMs: 60_000 },
      createBudget({ cost: 0.05 }),
    )
    await expect(child.outcome).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' })
    expect(budget.spent().costUsd).toBeLessThanOrEqual(0.05 + 1e-9)
    expect(isAlive(child.pid!)).toBe(false)
  })

  it('passes an answer to a question on stdin', async () => {
    const questions: string[] = []
    const budget = createBudget({ cost: 1 })
    const child = startAdapterProcess({
      adapter: standInAdapter,
      task: JSON.stringify({ question: 'Which branch?' }),
      directory: root,
      context: { turn: 1 },
      budget,
      onQuestion: (question) => {
        questions.push(question)
        child.answer('main')
      },
    })
    expect((await child.outcome).text).toBe('answer was main')
    expect(questions).toEqual(['Which branch?'])
  })

  it('rejects with AGENT_PROCESS_FAILED and its stderr when it exits non-zero', async () => {
    const { child } = start({ exitCode: 3 })
    await expect(child.outcome).rejects.toMatchObject({
      code: 'AGENT_PROCESS_FAILED',
      details: { exitCode: 3, stderr: 'stand-in failed on purpose' },
    })
  })
})
