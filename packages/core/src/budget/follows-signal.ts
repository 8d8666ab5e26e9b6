import type { Budget } from './budget-types'

/** The budget each budget's signal belongs to; a signal keeps its budget alive, no longer. */
const budgetOfSignal = new WeakMap<AbortSignal, Budget>()

/** Records that `signal` is the signal of `budget`. */
export function ownSignal(budget: Budget, signal: AbortSignal): void {
  budgetOfSignal.set(signal, budget)
}

/**
 * Whether `budget` already aborts whenever `signal` does: `signal` is the signal of the budget
 * itself or of one of its ancestors. A run given such a signal needs no second one.
 *
 * @example
 * followsSignal(root.child(), root.signal) // true
 */
export function followsSignal(budget: Budget, signal: AbortSignal): boolean {
  // Every budget's signal is recorded as it is made: one no budget owns is no budget's.
  const owner = budgetOfSignal.get(signal)
  if (!owner) return false
  for (let node: Budget | undefined = budget; node; node = node.parent) {
    if (node === owner) return true
  }
  // A view of a budget shares the signal of the budget it shows. Asked last: a budget's
  // signal is made when first read.
  return budget.signal === signal
}
