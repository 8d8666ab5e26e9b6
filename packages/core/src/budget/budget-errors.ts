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
    const left = Math.max(0, limit - spent)
    const message =
      dimension === 'wallMs'
        ? `Budget "${budget}" ran out of time: its ${limit} ms deadline passed.`
        : refusal({ budget, dimension, limit, left, requested, action })
    super('BUDGET_EXCEEDED', message, {
      details: { budget, dimension, limit, spent, left, requested },
    })
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

// Said once, in the order a person asks: what was wanted, then what is left of the limit.
function refusal(options: {
  budget: string
  dimension: Exclude<BudgetDimension, 'wallMs'>
  limit: number
  left: number
  requested: number
  action: string
}): string {
  const { budget, dimension, limit, left, requested, action } = options
  const leftOf = `${figure(dimension, left)} of ${amount(dimension, limit)} left`
  if (action === 'give a child') {
    return `Budget "${budget}" cannot give a child ${amount(dimension, requested)}: it has ${leftOf}.`
  }
  if (requested <= 0) {
    return `Budget "${budget}" is used up: it has ${leftOf}.`
  }
  return `Budget "${budget}" needs ${amount(dimension, requested)} but has ${leftOf}.`
}

// "1 call", "0 of 5 calls" read as the counts they are; money reads as dollars.
function amount(dimension: Exclude<BudgetDimension, 'wallMs'>, value: number): string {
  if (!Number.isFinite(value) || dimension === 'costUsd') return figure(dimension, value)
  const unit = dimension === 'calls' ? 'call' : 'token'
  return `${figure(dimension, value)} ${unit}${value === 1 ? '' : 's'}`
}

function figure(dimension: BudgetDimension, value: number): string {
  if (!Number.isFinite(value)) return 'unlimited'
  if (dimension === 'costUsd') return `$${Number(value.toFixed(6))}`
  return String(Number(value.toFixed(3)))
}
