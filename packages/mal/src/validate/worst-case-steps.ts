import type { Plan, Step } from '../plan'
import type { RawIssue } from './check-plan'

/**
 * How many steps a block may execute at most: each step counts one, a `loop` its `maxIters`
 * times its body, an `if` its larger branch, a `fanout` every branch. The plan is already
 * validated (so nested at most `maxDepth` levels): the recursion is bounded.
 *
 * @example
 * worstCaseSteps([{ op: 'loop', while: 'true', maxIters: 10, do: [stopStep] }]) // 11
 */
export function worstCaseSteps(steps: readonly Step[]): number {
  let total = 0
  for (const step of steps) total += worstCaseOf(step)
  return total
}

function worstCaseOf(step: Step): number {
  switch (step.op) {
    case 'loop':
      return 1 + step.maxIters * worstCaseSteps(step.do)
    case 'if':
      return 1 + Math.max(worstCaseSteps(step.then), worstCaseSteps(step.else ?? []))
    case 'fanout':
      return 1 + step.branches.reduce((sum, branch) => sum + worstCaseSteps(branch.steps), 0)
    default:
      return 1
  }
}

type OuterLoop = { path: (string | number)[]; steps: number; maxIters: number; body: number }

/**
 * The issue of a plan that may execute more than `maxRunSteps` steps, placed at the outermost
 * loop that takes it past the cap (or, when only several loops together do, the largest), so
 * the author sees which loop to bound.
 *
 * @example
 * checkWorstCase(plan, 50_000) // [] or [{ path: ['steps', 0], message: '... (limit maxRunSteps)' }]
 */
export function checkWorstCase(plan: Plan, maxRunSteps: number): RawIssue[] {
  const total = worstCaseSteps(plan.steps)
  if (total <= maxRunSteps) return []
  const loops: OuterLoop[] = []
  collectOuterLoops(plan.steps, ['steps'], loops)
  const culprit =
    loops.find((loop) => loop.steps > maxRunSteps) ??
    loops.reduce<OuterLoop | undefined>(
      (largest, loop) => (largest && largest.steps >= loop.steps ? largest : loop),
      undefined,
    )
  const cap = `more than the run's cap of ${maxRunSteps} steps (limit maxRunSteps)`
  if (!culprit) return [{ path: [], message: `the plan may run ${total} steps, ${cap}` }]
  const own = `this loop may run ${formatCount(culprit.steps)} steps (maxIters ${culprit.maxIters} × ${formatCount(culprit.body)} steps per iteration)`
  const message =
    culprit.steps > maxRunSteps
      ? `${own}, ${cap}`
      : `${own}; with the rest of the plan it may run ${formatCount(total)} steps, ${cap}`
  return [{ path: culprit.path, message }]
}

// Loops not inside another loop, wherever they are (inside an `if` or a fanout's branch too).
function collectOuterLoops(
  steps: readonly Step[],
  path: (string | number)[],
  into: OuterLoop[],
): void {
  steps.forEach((step, index) => {
    const here = [...path, index]
    if (step.op === 'loop') {
      const body = worstCaseSteps(step.do)
      into.push({ path: here, steps: worstCaseOf(step), maxIters: step.maxIters, body })
    } else if (step.op === 'if') {
      collectOuterLoops(step.then, [...here, 'then'], into)
      if (step.else) collectOuterLoops(step.else, [...here, 'else'], into)
    } else if (step.op === 'fanout') {
      step.branches.forEach((branch, branchIndex) => {
        collectOuterLoops(branch.steps, [...here, 'branches', branchIndex, 'steps'], into)
      })
    }
  })
}

// Products of nested maxIters pass Number.MAX_SAFE_INTEGER quickly; they are shown rounded.
function formatCount(count: number): string {
  return Number.isSafeInteger(count) ? String(count) : count.toExponential(2)
}
