export { type CheckPlanOptions, checkPlan, type RawIssue } from './check-plan'
export { ensurePlan, runValidation } from './ensure-plan'
export {
  type ParsePlanOptions,
  parsePlan,
  type SafeParsePlanResult,
  safeParsePlan,
} from './parse-plan'
export {
  checkPlanLimits,
  DEFAULT_MAX_RUN_STEPS,
  DEFAULT_PLAN_LIMITS,
  type PlanLimits,
} from './plan-limits'
export { formatIssue, type PlanIssue, PlanValidationError } from './plan-validation-error'
export { locatePath, type SourcePosition } from './source-map'
export { isValidatedPlan } from './validated-plans'
export { checkWorstCase, worstCaseSteps } from './worst-case-steps'
