import { isValidatedPlan, type Plan, PlanValidationError, parsePlan } from '@baton/mal'
import { describe, expect, it } from 'vitest'
import { createValidatedPlans } from './validated-plans'

const planOf = (name: string, prompt = 'Hi') => ({
  name,
  steps: [{ op: 'stop', output: prompt }],
})

// The validations a cache asks for, counted.
function counted() {
  const validated: unknown[] = []
  const plans = createValidatedPlans((source) => {
    validated.push(source)
    return parsePlan(source)
  })
  return { plans, validated }
}

describe('validated plans', () => {
  it('validates a plan sent again once, and hands every run the same frozen plan', () => {
    const { plans, validated } = counted()
    const first = plans.validate(planOf('weekly'))
    // Another request's copy of the same plan: equal, not the same object.
    const second = plans.validate(planOf('weekly'))
    expect(second).toBe(first)
    expect(isValidatedPlan(first)).toBe(true)
    expect(Object.isFrozen(first.steps[0])).toBe(true)
    expect(validated).toHaveLength(1)
    // Another plan is validated on its own.
    expect(plans.validate(planOf('daily')).name).toBe('daily')
    expect(validated).toHaveLength(2)
  })

  it('keeps the text of a plan apart from a parsed one', () => {
    const { plans, validated } = counted()
    const text = JSON.stringify(planOf('weekly'))
    plans.validate(text)
    plans.validate(planOf('weekly'))
    plans.validate(text)
    expect(validated).toEqual([text, planOf('weekly')])
  })

  it('keeps nothing of a plan that fails: it is refused again, with the same issues', () => {
    const { plans, validated } = counted()
    const broken = { name: 'broken', steps: [{ op: 'no-such-op' }] }
    const refusal = (): PlanValidationError => {
      try {
        plans.validate(broken)
      } catch (error) {
        return error as PlanValidationError
      }
      throw new Error('the broken plan was accepted')
    }
    const first = refusal()
    const again = refusal()
    expect(first).toBeInstanceOf(PlanValidationError)
    expect(again.issues).toEqual(first.issues)
    expect(validated).toHaveLength(2)
  })

  it('drops the least recently used plan past 256, never one in use', () => {
    const { plans, validated } = counted()
    plans.validate(planOf('kept'))
    for (let index = 0; index < 300; index += 1) {
      plans.validate(planOf(`plan-${index}`))
      // 'kept' is sent all along: it stays.
      if (index % 50 === 0) plans.validate(planOf('kept'))
    }
    const count = validated.length
    plans.validate(planOf('kept'))
    plans.validate(planOf('plan-299'))
    expect(validated).toHaveLength(count)
    // The oldest of the others went.
    plans.validate(planOf('plan-0'))
    expect(validated).toHaveLength(count + 1)
  })

  it('does not keep a plan larger than 16 Ki characters', () => {
    const { plans, validated } = counted()
    const large = planOf('large', 'x'.repeat(20_000))
    const first = plans.validate(large)
    const second = plans.validate(large)
    expect(validated).toHaveLength(2)
    expect(second).not.toBe(first)
  })

  it('hands a run the plan kept as it was accepted, once', () => {
    const { plans } = counted()
    const plan: Plan = plans.validate(planOf('weekly'))
    plans.keep('run-1', plan)
    expect(plans.take('run-1')).toBe(plan)
    expect(plans.take('run-1')).toBeUndefined()
  })
})
