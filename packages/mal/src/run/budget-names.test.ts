import { createBudget, createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { PlanSchema } from '../plan'
import { carveBudget } from './carve-budget'
import { rootBudget } from './root-budget'

describe('carveBudget', () => {
  it("gives a loop's iterations of one step distinct budget names", () => {
    const block = createBudget({ calls: 10 }, { name: 'plan' })
    const names = [1, 2, 3].map(
      () => carveBudget(block, { calls: 1 }, 'steps[2].do[0]').budget.name,
    )
    expect(names).toEqual(['steps[2].do[0]', 'steps[2].do[0]#2', 'steps[2].do[0]#3'])
  })
})

describe('rootBudget', () => {
  it("names each run of one plan on a shared caller's budget apart", () => {
    const plan = PlanSchema.parse({ name: 'triage', steps: [{ op: 'stop', output: 'done' }] })
    const caller = createBudget({ cost: 1 }, { name: 'caller' })
    const options = { registry: createStaticRegistry([]), budget: caller }
    const first = rootBudget({ plan, options })
    const second = rootBudget({ plan, options })
    expect([first.name, second.name]).toEqual(['plan:triage', 'plan:triage#2'])
  })
})
