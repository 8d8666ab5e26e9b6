import { parseWith } from '@baton/core'
import type { Plan } from '../plan'
import { parsePlan } from '../validate'
import { executeRun } from './execute-run'
import { resolveInputs } from './resolve-inputs'
import type { RunPlanOptions, RunResult } from './run-options'
import { RunPlanOptionsSchema } from './run-options-schema'

/**
 * Runs a MAL plan. The plan is validated first (a `PlanValidationError` rejects the promise,
 * as do inputs that do not match its declared inputs); after that every outcome is a result:
 * `done`, `stopped` (a `stop` with a reason), `failed`, `paused` (an `ask_user`, with a
 * JSON `state` for `resumeRun`) or `cancelled`.
 *
 * @example
 * const result = await runPlan(planYaml, {
 *   inputs: { request: 'Refund order 1182' },
 *   registry: createRegistryClient({ baseUrl: 'http://localhost:8787' }),
 *   onEvent: (event) => console.log(event.type),
 * })
 * result.output // the stop step's output
 */
export async function runPlan(
  plan: Plan | string | object,
  options: RunPlanOptions,
): Promise<RunResult> {
  parseWith(RunPlanOptionsSchema, options, 'runPlan options')
  const validated = parsePlan(plan)
  const inputs = resolveInputs(validated.inputs, options.inputs)
  return executeRun({ plan: validated, inputs, options })
}
