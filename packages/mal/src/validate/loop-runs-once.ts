import { conditionReferences, evaluateCondition, parseCondition } from '../condition'

/**
 * Whether a loop certainly runs its body at least once: its `while` reads only names that
 * have no value when the loop is first reached (they read as `null`), so the first check
 * has one answer whatever the run did before. `while: "{{review.approved}} != true"` over a
 * body that saves `review` is such a loop; anything reading earlier values may run zero
 * times.
 *
 * @example
 * loopRunsOnce({ while: '{{review}} != "ok"', maxIters: 3 }, new Set(['review'])) // true
 */
export function loopRunsOnce(
  step: { while?: unknown; maxIters?: unknown },
  unsetAtEntry: ReadonlySet<string>,
): boolean {
  if (typeof step.while !== 'string') return false
  if (typeof step.maxIters === 'number' && step.maxIters < 1) return false
  try {
    const condition = parseCondition(step.while)
    const references = conditionReferences(condition)
    if (!references.every((reference) => unsetAtEntry.has(reference.root))) return false
    return evaluateCondition(condition, { inputs: {}, values: {} })
  } catch {
    // A condition that does not parse (reported elsewhere) or cannot be ordered at its first
    // check is no promise that the body runs.
    return false
  }
}
