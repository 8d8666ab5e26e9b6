import { type Budget, type BudgetLimits, createBudget } from '@baton/core'
import type { Plan } from '../plan'
import type { RunPlanOptions } from './run-options'
import type { RunState } from './run-state'

/**
 * The budget of a whole run: the plan's limits (less what a paused run already spent), as a
 * child of the caller's budget capped by what that has left, or a root of its own.
 *
 * @example
 * const budget = rootBudget({ plan, options: { registry, budget: createBudget({ cost: 1 }) } })
 */
export function rootBudget(input: {
  plan: Plan
  options: RunPlanOptions
  previous?: RunState
}): Budget {
  const limits: BudgetLimits = { ...input.plan.budget }
  const spent = input.previous?.usage
  // A resumed run has what the plan had, less what it spent before the pause.
  if (spent) {
    if (limits.calls !== undefined) limits.calls = Math.max(0, limits.calls - spent.calls)
    if (limits.tokens !== undefined) limits.tokens = Math.max(0, limits.tokens - spent.tokens)
    if (limits.costUsd !== undefined) limits.costUsd = Math.max(0, limits.costUsd - spent.costUsd)
  }
  if (limits.maxWallMs !== undefined && input.previous) {
    limits.maxWallMs = Math.max(0, limits.maxWallMs - input.previous.wallMs)
  }
  const name = input.plan.name ? `plan:${input.plan.name}` : 'plan'
  const parent = input.options.budget
  if (!parent) return createBudget(limits, { name })
  const left = parent.remaining()
  const capped: BudgetLimits = {}
  for (const key of ['calls', 'tokens', 'costUsd'] as const) {
    const value = Math.min(limits[key] ?? Infinity, left[key])
    if (Number.isFinite(value)) capped[key] = value
  }
  // A child never outlives its parent's deadline anyway; asking for exactly the time left
  // would race the clock (a millisecond later it is more than what is left).
  if (limits.maxWallMs !== undefined && limits.maxWallMs < left.wallMs) {
    capped.maxWallMs = limits.maxWallMs
  }
  // Numbered when taken: several runs of one plan may share the caller's budget.
  return parent.child(capped, { name, ifTaken: 'number' })
}
