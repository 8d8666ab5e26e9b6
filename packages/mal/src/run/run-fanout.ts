import { BatonError, type Budget } from '@baton/core'
import type { FanoutStep, Step } from '../plan'
import { branchValues } from '../template/template-scope'
import { carveBudget, throwIfStopped } from './carve-budget'
import type { BlockOutcome, Frame } from './interpreter-types'
import { FanoutFailedError } from './run-errors'

export type RunFanoutOptions = {
  step: FanoutStep
  /** The fanout step's frame: its budget is the one branches are carved from. */
  frame: Frame
  runBlock: (steps: Step[], frame: Frame) => Promise<BlockOutcome>
}

/**
 * Runs a fanout's branches, at most `concurrency` at a time, each on a budget of its own and
 * a copy of the scope, and gathers them (`all`, `any-success` or `first`). Losing or
 * remaining branches are cancelled through their budgets.
 *
 * @example
 * const value = await runFanout({ step, frame, runBlock: (steps, frame) => interpreter.runBlock(steps, frame) })
 */
export async function runFanout(options: RunFanoutOptions): Promise<unknown> {
  const { step, frame, runBlock } = options
  const { branches, gather } = step
  const concurrency = Math.min(step.concurrency ?? branches.length, branches.length)
  // A budget per branch: steps in a branch run one after another on it, so what it spent
  // during a step is that step's usage, whatever the other branches spend meanwhile. All are
  // made before any branch spends: a child is capped by what its parent has left when it is
  // made, so one made while a sibling holds a reservation would be starved for good.
  const budgets: Budget[] = []
  for (let index = 0; index < branches.length; index++) {
    budgets.push(carveBudget(frame.budget, undefined, `${frame.path}.branches[${index}]`).budget)
  }
  const successes = new Map<number, unknown>()
  const failures = new Map<number, unknown>()
  let winner: number | undefined
  let settled = false
  const cancelOthers = (except: number, reason: string) => {
    settled = true
    for (let index = 0; index < budgets.length; index++) {
      if (index !== except) budgets[index]!.cancel(reason)
    }
  }
  let next = 0
  const worker = async () => {
    while (next < branches.length && !settled) {
      const index = next++
      const branch = branches[index]!
      // A branch reads what the run saved before the fanout (through a link, with no copy);
      // what it saves stays in it. A null-prototype object, which V8 keeps as a dictionary:
      // branches save under names of their own, and on `Object.create(values)` each new name
      // made a hidden class of its own (15% of a 1000-branch fan-out's profile).
      const values = branchValues(frame.values)
      try {
        const budget = budgets[index]!
        const branchFrame: Frame = {
          budget,
          values,
          path: `${frame.path}.branches[${index}].steps`,
        }
        if (frame.iteration !== undefined) branchFrame.iteration = frame.iteration
        const outcome = await runBlock(branch.steps, branchFrame)
        if (settled) continue
        const value =
          outcome.kind === 'stop' ? outcome.output : outcome.kind === 'next' ? outcome.last : null
        successes.set(index, value)
        if (gather === 'first') {
          winner = index
          cancelOthers(index, `branch "${branch.id}" finished first`)
        }
      } catch (error) {
        failures.set(index, error)
        if (gather === 'all' && !settled) cancelOthers(index, `branch "${branch.id}" failed`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  throwIfStopped(frame.budget)
  if (gather === 'all') {
    const [first] = failures.values()
    if (failures.size > 0) throw first
    return gathered(
      branches,
      branches.map((_, index) => index),
      successes,
    )
  }
  if (gather === 'first' && winner !== undefined) return successes.get(winner) ?? null
  if (gather === 'any-success' && successes.size > 0) {
    return gathered(
      branches,
      [...successes.keys()].sort((a, b) => a - b),
      successes,
    )
  }
  throw new FanoutFailedError({
    path: frame.path,
    failures: [...failures].map(([index, error]) => ({
      id: branches[index]!.id,
      code: BatonError.isInstance(error) ? error.code : 'STEP_FAILED',
      message: error instanceof Error ? error.message : String(error),
    })),
  })
}

/**
 * The values of the branches at `indices`, by branch id in that order (`null` for one with
 * none). Set key by key: `Object.fromEntries` made a pair array per branch.
 */
function gathered(
  branches: FanoutStep['branches'],
  indices: number[],
  successes: Map<number, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (const index of indices) {
    const id = branches[index]!.id
    const value = successes.get(index) ?? null
    // As `fromEntries` has it: an id of `__proto__` is a key like any other.
    if (id === '__proto__') {
      Object.defineProperty(result, id, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else {
      result[id] = value
    }
  }
  return result
}
