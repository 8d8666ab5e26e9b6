import type { Budget } from '@baton/core'
import { roundUsd } from '../round-usd'
import type { RunUsage } from './run-event'

// Ops that never charge a budget: their usage is zero without asking the budget.
export const SPENDS_NOTHING = new Set<string>([
  'scratch',
  'stop',
  'ask_user',
  'search_agents',
  'search_tools',
  'search_models',
  'conclave',
])

/**
 * What `budget` spent since it had spent `before` (money rounded to 1e-12 USD, so float noise
 * does not show).
 *
 * @example
 * const before = budget.spent()
 * // ... the step runs on `budget`
 * spentSince(budget, before) // { calls: 1, tokens: 420, costUsd: 0.002 }
 */
export function spentSince(budget: Budget, before: RunUsage): RunUsage {
  const now = budget.spent()
  return {
    calls: now.calls - before.calls,
    tokens: now.tokens - before.tokens,
    costUsd: roundUsd(now.costUsd - before.costUsd),
  }
}

/**
 * What `budget` spent in all (nothing without a budget).
 *
 * @example
 * usageOf(stepBudget) // { calls: 2, tokens: 900, costUsd: 0.004 }
 */
export function usageOf(budget: Budget | undefined): RunUsage {
  if (!budget) return { calls: 0, tokens: 0, costUsd: 0 }
  const { calls, tokens, costUsd } = budget.spent()
  return { calls, tokens, costUsd }
}
