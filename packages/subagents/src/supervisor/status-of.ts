import { BatonError, type Budget } from '@baton/core'
import type { SubagentStatus } from './types'

/**
 * The status a sub-agent's turn ended with, from what it threw: out of budget, out of time,
 * cancelled from above, or failed.
 *
 * @example
 * statusOf(new BudgetExceededError({ budget: 'b', dimension: 'calls', limit: 2, spent: 2, requested: 1 }), budget)
 * // 'budget-exhausted'
 */
export function statusOf(error: unknown, budget: Budget): SubagentStatus {
  const candidates: unknown[] = []
  if (BatonError.isInstance(error)) {
    error.walk((cause) => {
      candidates.push(cause)
      return false
    })
  } else candidates.push(error)
  if (budget.signal.aborted) candidates.push(budget.signal.reason)
  for (const candidate of candidates) {
    if (!BatonError.isInstance(candidate)) continue
    if (candidate.code === 'CANCELLED') return 'cancelled'
    if (candidate.code === 'BUDGET_EXCEEDED') {
      return candidate.details.dimension === 'wallMs' ? 'timed-out' : 'budget-exhausted'
    }
  }
  return 'failed'
}

/** The message of whatever a turn threw. */
export function messageOf(error: unknown): string {
  if (BatonError.isInstance(error)) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
