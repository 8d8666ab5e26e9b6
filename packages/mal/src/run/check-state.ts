import type { Plan, Step } from '../plan'
import { resolveInputs } from './resolve-inputs'
import { PlanInputError, RunStateError } from './run-errors'
import type { RunCursor, RunState } from './run-state'

/**
 * Checks a state against the plan it claims to continue, so a changed state cannot re-run a
 * finished step, skip a pending one or return values no step saved: a paused state's cursor
 * must lead to its pending `ask_user`; a checkpoint's must be a top-level step boundary; its
 * values must be names the plan saves; its inputs are checked again; its usage must cover
 * what its wallets spent. Returns the inputs to run with.
 *
 * @example
 * const inputs = checkState(plan, state) // throws RunStateError (RUN_STATE_INVALID)
 */
export function checkState(plan: Plan, state: RunState): Record<string, unknown> {
  if (state.pending) checkPendingCursor(plan.steps, state.cursor, state.pending)
  else checkCheckpointCursor(plan.steps, state.cursor)
  const saved = savedNames(plan.steps)
  for (const name of Object.keys(state.values)) {
    if (!saved.has(name)) throw new RunStateError(`its values name "${name}", which no step saves`)
  }
  const byWallet = { calls: 0, tokens: 0, costUsd: 0 }
  for (const usage of Object.values(state.usageByWallet)) {
    byWallet.calls += usage.calls
    byWallet.tokens += usage.tokens
    byWallet.costUsd += usage.costUsd
  }
  for (const key of ['calls', 'tokens', 'costUsd'] as const) {
    if (state.usage[key] + 1e-9 < byWallet[key]) {
      throw new RunStateError(`its usage.${key} is less than its wallets spent`)
    }
  }
  try {
    return resolveInputs(plan.inputs, state.inputs)
  } catch (error) {
    if (error instanceof PlanInputError)
      throw new RunStateError(`its inputs: ${error.shortMessage}`)
    throw error
  }
}

function checkPendingCursor(
  steps: Step[],
  cursor: RunCursor,
  pending: NonNullable<RunState['pending']>,
): void {
  let block = steps
  let at: RunCursor | undefined = cursor
  let path = 'steps'
  while (at) {
    const step = block[at.index]
    path = `${path}[${at.index}]`
    if (!step) throw new RunStateError(`its cursor points past the end of ${path}`)
    if (step.op === 'ask_user') {
      if (at.inner || at.branch || at.iteration) {
        throw new RunStateError(`its cursor goes inside the ask_user at ${path}`)
      }
      if (path !== pending.path || step.saveAs !== pending.saveAs) {
        throw new RunStateError(`its cursor is at ${path}, not at the pending ask_user`)
      }
      return
    }
    if (step.op === 'if' && at.branch && at.inner && at.iteration === undefined) {
      block = (at.branch === 'then' ? step.then : step.else) ?? []
      path = `${path}.${at.branch}`
    } else if (
      step.op === 'loop' &&
      at.iteration !== undefined &&
      at.iteration <= step.maxIters &&
      at.inner &&
      !at.branch
    ) {
      block = step.do
      path = `${path}.do`
    } else {
      throw new RunStateError(`its cursor is at ${path} (${step.op}), not at an ask_user`)
    }
    at = at.inner
  }
  throw new RunStateError('its cursor ends before an ask_user')
}

function checkCheckpointCursor(steps: Step[], cursor: RunCursor): void {
  if (cursor.inner || cursor.branch || cursor.iteration) {
    throw new RunStateError('a checkpoint is taken between top-level steps, not inside one')
  }
  if (cursor.index < 1 || cursor.index > steps.length) {
    throw new RunStateError(`its cursor ${cursor.index} is not after a step of the plan`)
  }
  if (steps[cursor.index - 1]?.op === 'stop') {
    throw new RunStateError('its cursor is after a stop, where the run ended')
  }
}

// Names a run's values can hold: every saveAs outside fanout branches (those stay in the branch).
function savedNames(steps: Step[], names = new Set<string>()): Set<string> {
  for (const step of steps) {
    if ('saveAs' in step && step.saveAs !== undefined) names.add(step.saveAs)
    if (step.op === 'if') {
      savedNames(step.then, names)
      if (step.else) savedNames(step.else, names)
    } else if (step.op === 'loop') {
      savedNames(step.do, names)
    }
  }
  return names
}
