import { formatPath, parseWith } from '@baton/core'
import { parsePlan } from '../validate'
import { executeRun } from './execute-run'
import { RunStateError } from './run-errors'
import type { RunPlanOptions, RunResult } from './run-options'
import { RunPlanOptionsSchema } from './run-options-schema'
import { RunState } from './run-state'

/**
 * Continues a paused run with the answer to its `ask_user` question. `state` is the
 * `result.state` of the paused run (it may have been stored as JSON and read back in another
 * process); `options` are what `runPlan` takes, minus the inputs, which the state keeps.
 *
 * @example
 * const paused = await runPlan(plan, options)
 * const saved = JSON.stringify(paused.state)
 * // ... later, anywhere:
 * const done = await resumeRun(JSON.parse(saved), 'Yes, go ahead', { registry })
 */
export async function resumeRun(
  state: unknown,
  answer: unknown,
  options: Omit<RunPlanOptions, 'inputs'>,
): Promise<RunResult> {
  parseWith(RunPlanOptionsSchema, options, 'resumeRun options')
  const parsed = RunState.safeParse(typeof state === 'string' ? safeJson(state) : state)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new RunStateError(
      `the state is not a paused run's state (${formatPath(issue?.path ?? [])}: ${issue?.message})`,
    )
  }
  if (answer === undefined) throw new RunStateError('an answer is required')
  const plan = parsePlan(parsed.data.plan)
  return executeRun({
    plan,
    inputs: parsed.data.inputs,
    options,
    resume: { state: parsed.data, answer },
  })
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
