import type { BudgetInput } from '../schemas/budget'
import { BudgetNode } from './budget-node'
import type { Budget, CreateBudgetOptions } from './budget-types'
import { normalizeLimits } from './normalize-limits'

export type {
  Budget,
  ChargeEvent,
  ChargeInput,
  ChargeOptions,
  ChildOptions,
  CreateBudgetOptions,
  Remaining,
  Reservation,
  Spend,
} from './budget-types'
export { followsSignal } from './follows-signal'

/**
 * Creates a root budget. Limits left out are unlimited. A wall limit (`seconds`, `maxWallMs`)
 * is a timer that keeps the budget alive until its deadline: `cancel()` a budget whose work is
 * over.
 *
 * @example
 * const budget = createBudget({ calls: 20, cost: 0.5, seconds: 60 })
 * const child = budget.child({ calls: 5 })
 * child.charge({ calls: 1, tokens: 420, costUsd: 0.002 }) // also charged to `budget`
 */
export function createBudget(limits: BudgetInput = {}, options: CreateBudgetOptions = {}): Budget {
  return new BudgetNode(
    normalizeLimits(limits),
    options.name ?? 'root',
    undefined,
    options.now ?? Date.now,
  )
}
