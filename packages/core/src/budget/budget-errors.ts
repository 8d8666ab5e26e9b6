import { BatonError } from '../errors/baton-error'

export type BudgetDimension = 'calls' | 'costUsd' | 'tokens' | 'wallMs'

/** A charge, reservation or child that would take a budget past one of its limits. */
export class BudgetExceededError extends BatonError {
  override name = 'BudgetExceededError'
  readonly budget: string
  readonly dimension: BudgetDimension
  constructor(options: {
    budget: string
    dimension: BudgetDimension
    limit: number
    spent: number
    requested: number
    action?: string
  }) {
    const { budget, dimension, limit, spent, requested, action = 'charge' } = options
    const message =
      dimension === 'wallMs'
        ? `Budget "${budget}" ran out of time: its ${limit} ms deadline passed.`
        : `Budget "${budget}" cannot ${action} ${format(dimension, requested)}: ${format(dimension, spent)} of ${format(dimension, limit)} ${dimension} already used.`
    super('BUDGET_EXCEEDED', message, { details: { budget, dimension, limit, spent, requested } })
    this.budget = budget
    this.dimension = dimension
  }
}

/** A budget (or one of its ancestors) was cancelled; nothing more may be charged to it. */
export class BudgetCancelledError extends BatonError {
  override name = 'BudgetCancelledError'
  constructor(budget: string, reason?: string) {
    super('CANCELLED', `Budget "${budget}" was cancelled${reason ? `: ${reason}` : ''}.`, {
      details: { budget, reason },
    })
  }
}

function format(dimension: BudgetDimension, value: number): string {
  if (!Number.isFinite(value)) return 'unlimited'
  if (dimension === 'costUsd') return `$${Number(value.toFixed(6))}`
  return String(Number(value.toFixed(3)))
}
