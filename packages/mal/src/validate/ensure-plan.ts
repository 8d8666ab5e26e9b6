import type { Plan } from '../plan'
import { type ParsePlanOptions, parsePlan } from './parse-plan'
import { isValidatedPlan } from './validated-plans'

/**
 * The plan to run: one `parsePlan` (or `safeParsePlan`) returned is used as it is (it was
 * validated, and is frozen, so it is still valid); anything else is validated now.
 *
 * @example
 * const plan = ensurePlan(parsePlan(text)) // no second validation
 */
export function ensurePlan(source: Plan | string | object, options?: ParsePlanOptions): Plan {
  if (isValidatedPlan(source)) return source
  return parsePlan(source, options)
}

/**
 * The validation options a run with `maxRunSteps` validates its plan with: a plan whose worst
 * case is past the run's cap is refused before it starts.
 *
 * @example
 * ensurePlan(plan, runValidation(options.maxRunSteps))
 */
export function runValidation(maxRunSteps: number | undefined): ParsePlanOptions | undefined {
  return maxRunSteps === undefined ? undefined : { limits: { maxRunSteps } }
}
