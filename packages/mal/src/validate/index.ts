export { type CheckPlanOptions, checkPlan, type RawIssue } from './check-plan'
export { ensurePlan } from './ensure-plan'
export {
  type ParsePlanOptions,
  parsePlan,
  type SafeParsePlanResult,
  safeParsePlan,
} from './parse-plan'
export { formatIssue, type PlanIssue, PlanValidationError } from './plan-validation-error'
export { locatePath, type SourcePosition } from './source-map'
export { isValidatedPlan } from './validated-plans'
