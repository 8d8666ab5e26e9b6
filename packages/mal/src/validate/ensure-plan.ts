import type { Plan } from '../plan'
import { parsePlan } from './parse-plan'
import { isValidatedPlan } from './validated-plans'

/**
 * The plan to run: one `parsePlan` (or `safeParsePlan`) returned is used as it is (it was
 * validated, and is frozen, so it is still valid); anything else is validated now.
 *
 * @example
 * const plan = ensurePlan(parsePlan(text)) // no second validation
 */
export function ensurePlan(source: Plan | string | object): Plan {
  if (isValidatedPlan(source)) return source
  return parsePlan(source)
}
