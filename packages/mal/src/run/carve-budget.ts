import { BatonError, type Budget, type BudgetLimits } from '@baton/core'
import type { Step } from '../plan'

/**
 * A step's own budget, carved from its parent's. When the parent has spent all it may (calls,
 * tokens or dollars) a step still gets to run on the parent's: steps that spend nothing
 * (`stop`, `scratch`, `ask_user`, conditions) go on, and any step that would spend is refused
 * by the budget itself. A cancelled or timed-out parent stops every step. The budget is named
 * after the step's path, numbered (`#2`, `#3`, ...) when the parent has a child of that name
 * already (the step's earlier iterations).
 */
export function carveBudget(
  parent: Budget,
  limits: BudgetLimits | undefined,
  name: string,
): { budget: Budget; borrowed: boolean } {
  if (parent.aborted && isSpendExhaustion(parent.signal.reason)) {
    return { budget: parent, borrowed: true }
  }
  // Numbered when taken (`steps[2].do[0]#2`): a loop's iterations carve the same step's
  // budget from one parent, and budget names are unique among siblings.
  return {
    budget: parent.child(capped(limits, parent), { name, ifTaken: 'number' }),
    borrowed: false,
  }
}

/**
 * Whether a budget's abort reason is that it spent all it may (calls, tokens or dollars),
 * rather than a cancellation or a deadline: its work so far stands, nothing more is spent.
 *
 * @example
 * if (budget.aborted && isSpendExhaustion(budget.signal.reason)) return lastAnswer
 */
export function isSpendExhaustion(reason: unknown): boolean {
  return (
    BatonError.isInstance(reason) &&
    reason.code === 'BUDGET_EXCEEDED' &&
    reason.details.dimension !== 'wallMs'
  )
}

export function throwIfStopped(budget: Budget): void {
  if (budget.aborted && !isSpendExhaustion(budget.signal.reason)) throw budget.signal.reason
}

export function stepLimits(step: Step): BudgetLimits | undefined {
  return 'budget' in step ? step.budget : undefined
}

// A step gets what it asks for, or what its parent has left if that is less.
function capped(limits: BudgetLimits | undefined, parent: Budget): BudgetLimits | undefined {
  if (!limits) return undefined
  const left = parent.remaining()
  const result: BudgetLimits = {}
  if (limits.calls !== undefined) result.calls = Math.min(limits.calls, left.calls)
  if (limits.tokens !== undefined) result.tokens = Math.min(limits.tokens, left.tokens)
  if (limits.costUsd !== undefined) result.costUsd = Math.min(limits.costUsd, left.costUsd)
  // The parent's deadline binds the child anyway; asking for exactly the time left races the clock.
  if (limits.maxWallMs !== undefined && limits.maxWallMs < left.wallMs) {
    result.maxWallMs = limits.maxWallMs
  }
  return result
}
