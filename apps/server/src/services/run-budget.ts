import { type Budget, type BudgetInput, createBudget } from '@baton/core'
import type { StoredUsage } from '../db/database'
import type { StoredRun } from '../db/runs-repository'
import type { RunContext } from './run-context'

/**
 * The run's budget (unlimited when it was given none, so its charges can be followed), with
 * what the run spent before this attempt already charged to it: a continued run has what its
 * budget had, less what it spent, interrupted attempts included.
 */
export function budgetSpent(context: RunContext, run: StoredRun, spent: StoredUsage): Budget {
  const given = (run.budget as BudgetInput | null) ?? {}
  const { maxRunWallMs } = context.options
  // A run without a time limit of its own gets the server's: no run holds a worker forever.
  const timed = hasWallLimit(given) || maxRunWallMs === undefined
  const budget = createBudget(timed ? given : { ...given, maxWallMs: maxRunWallMs })
  if (spent.calls > 0 || spent.tokens > 0 || spent.costUsd > 0) {
    // Recorded as it is even past a limit (it was spent); a budget it exhausts ends the run.
    budget.reserve({}).settle(spent)
  }
  return budget
}

function hasWallLimit(budget: BudgetInput): boolean {
  return budget.maxWallMs !== undefined || budget.seconds !== undefined
}
