import { randomUUID } from 'node:crypto'
import { parseWith } from '@baton/core'
import { expireRunConclave } from '../conclave/expire-run-conclave'
import type { Plan } from '../plan'
import { withReceipt } from '../receipt/with-receipt'
import { ensurePlan, runValidation } from '../validate'
import { executeRun } from './execute-run'
import { resolveInputs } from './resolve-inputs'
import { type RunHandle, startRun } from './run-handle'
import type { RunPlanOptions } from './run-options'
import { RunPlanOptionsSchema } from './run-options-schema'

/**
 * Runs a MAL plan. The plan is validated first, unless it is a plan `parsePlan` returned (a
 * `PlanValidationError` rejects the promise, as do inputs that do not match its declared
 * inputs); after that every outcome is a result: `done`, `stopped` (a `stop` with a reason),
 * `failed`, `paused` (an `ask_user`, with a JSON `state` for `resumeRun`) or `cancelled`.
 * Besides the promise of the result, the handle carries the run's `events` as a stream.
 *
 * @example
 * const run = runPlan(planYaml, {
 *   inputs: { request: 'Refund order 1182' },
 *   registry: createRegistryClient({ baseUrl: 'http://localhost:8787' }),
 * })
 * for await (const event of run.events) console.log(event.type)
 * const result = await run
 * result.output // the stop step's output
 */
export function runPlan(plan: Plan | string | object, options: RunPlanOptions): RunHandle {
  const runId = typeof options?.runId === 'string' ? options.runId : randomUUID()
  return startRun(
    runId,
    async (channel) => {
      parseWith(RunPlanOptionsSchema, options, 'runPlan options')
      const validated = ensurePlan(plan, runValidation(options.maxRunSteps))
      const inputs = resolveInputs(validated.inputs, options.inputs)
      return withReceipt(validated, inputs, options, (observed) =>
        executeRun({ plan: validated, inputs, options: observed, runId, channel }).then((result) =>
          expireRunConclave(options, result),
        ),
      )
    },
    options?.eventBuffer,
  )
}
