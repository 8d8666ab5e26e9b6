import { formatPath, parseWith } from '@baton/core'
import { expireRunConclave } from '../conclave/expire-run-conclave'
import type { Plan } from '../plan'
import { ensurePlan, runValidation } from '../validate'
import { checkState } from './check-state'
import { executeRun } from './execute-run'
import { createMemoryResumeStore } from './resume-store'
import { RunStateError } from './run-errors'
import { type RunHandle, startRun } from './run-handle'
import type { ResumeRunOptions } from './run-options'
import { RunPlanOptionsSchema } from './run-options-schema'
import { RunState } from './run-state'
import { isSealedBy } from './seal-state'

// Without a store of its own, a process remembers the states it resumed.
const processStore = createMemoryResumeStore()

/**
 * Continues a run from a state: a paused run's (`result.state`, with the answer to its
 * `ask_user`) or a checkpoint's (`onCheckpoint`, with no answer), which may have been stored
 * as JSON and read back in another process. The run keeps its id, its spend and its event
 * numbering; no finished step runs again. The state is checked against its plan (and its
 * seal, given a `secret`), and is resumed at most once (`options.resumed`).
 *
 * Two forms: `resumeRun(state, answer, options)` and `resumeRun(plan, state, options)` (the
 * answer, if any, in `options.answer`), where the state must be a state of that plan.
 *
 * @example
 * const paused = await runPlan(plan, options)
 * const saved = JSON.stringify(paused.state)
 * // ... later, anywhere:
 * const done = await resumeRun(JSON.parse(saved), 'Yes, go ahead', { registry })
 */
export function resumeRun(state: unknown, answer: unknown, options: ResumeRunOptions): RunHandle
export function resumeRun(
  plan: Plan | string | object,
  state: RunState | string,
  options: ResumeRunOptions,
): RunHandle
export function resumeRun(first: unknown, second: unknown, options: ResumeRunOptions): RunHandle {
  const planForm = looksLikeState(second)
  const given = planForm ? readJson(second) : readJson(first)
  const runId =
    typeof (given as { runId?: unknown } | undefined)?.runId === 'string'
      ? (given as { runId: string }).runId
      : ''
  return startRun(
    runId,
    async (channel) => {
      parseWith(RunPlanOptionsSchema, options, 'resumeRun options')
      const parsed = RunState.safeParse(given)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        throw new RunStateError(
          `the state is not a run's state (${formatPath(issue?.path ?? [])}: ${issue?.message})`,
        )
      }
      const state = parsed.data
      if (options.secret !== undefined && !isSealedBy(state, options.secret)) {
        throw new RunStateError(
          state.seal === undefined
            ? 'the state is not sealed, and this run requires sealed states'
            : 'the state was changed after it was sealed',
        )
      }
      const plan = ensurePlan(state.plan, runValidation(options.maxRunSteps))
      if (
        planForm &&
        JSON.stringify(ensurePlan(first as object, runValidation(options.maxRunSteps))) !==
          JSON.stringify(plan)
      ) {
        throw new RunStateError('the state is not a state of this plan')
      }
      const answer = planForm ? options.answer : second
      if (state.pending && answer === undefined) {
        throw new RunStateError('an answer is required')
      }
      if (!state.pending && answer !== undefined) {
        throw new RunStateError('a checkpoint takes no answer (no question is pending)')
      }
      const inputs = checkState(plan, state)
      const stateId = state.stateId ?? `${state.runId}@${state.sequence}`
      const store = options.resumed ?? processStore
      if (!(await store.claim(stateId))) {
        throw new RunStateError(`the state ${stateId} was already resumed`)
      }
      return executeRun({
        plan,
        inputs,
        options,
        runId: state.runId,
        channel,
        resume: { state, ...(state.pending ? { answer: { value: answer } } : {}) },
      }).then((result) => expireRunConclave(options, result))
    },
    options.eventBuffer,
  )
}

function looksLikeState(value: unknown): boolean {
  const read = readJson(value)
  return (
    typeof read === 'object' &&
    read !== null &&
    'runId' in read &&
    'cursor' in read &&
    'version' in read
  )
}

function readJson(value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}
