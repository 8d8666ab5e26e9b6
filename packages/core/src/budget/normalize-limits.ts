import { ValidationError } from '../errors/baton-error'
import { type BudgetInput, type BudgetLimits, Budget as BudgetSchema } from '../schemas/budget'
import { issuesOf } from '../schemas/parse'

/** Limits as the schema reads them; no limits (the common child) is not parsed at all. */
export function normalizeLimits(limits: BudgetInput | undefined): BudgetLimits {
  // No limits is the common child ("all the parent has left"): nothing to check.
  if (limits == null || (typeof limits === 'object' && isEmpty(limits))) return {}
  const result = BudgetSchema.safeParse(limits)
  if (!result.success) throw new ValidationError('budget', issuesOf(result.error))
  return result.data
}

function isEmpty(value: object): boolean {
  for (const _key in value) return false
  return Object.getPrototypeOf(value) === Object.prototype
}
