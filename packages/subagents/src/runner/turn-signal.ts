import type { SubagentTurn } from './types'

// One getter for every turn: a turn's signal is its budget's, made only when a runner reads it.
const budgetSignal: PropertyDescriptor = {
  get(this: SubagentTurn) {
    return this.budget.signal
  },
  enumerable: true,
  configurable: true,
}

/**
 * Gives `turn` its budget's signal, read when a runner reads it: a budget makes its signal
 * when first asked, and the default runner (which follows the budget itself) never asks.
 *
 * @example
 * const turn = withBudgetSignal({ agent, messages, budget, tools, directory })
 */
export function withBudgetSignal(turn: Omit<SubagentTurn, 'signal'>): SubagentTurn {
  return Object.defineProperty(turn, 'signal', budgetSignal) as SubagentTurn
}

/** Whether `turn`'s signal is its budget's own (as `withBudgetSignal` gives it). */
export function signalIsBudgets(turn: SubagentTurn): boolean {
  return Object.getOwnPropertyDescriptor(turn, 'signal')?.get === budgetSignal.get
}
