import { OldestFirst } from '@baton/core'
import type { Plan } from '@baton/mal'

// Plans of runs accepted here and not yet started: enough for a burst of runs queued at once;
// past it the oldest are forgotten (their runs find their plan by its content, or validate it).
const keptRuns = 1000
// Plans kept by their content, the least recently used dropped first, and the largest plan so
// kept (in characters of its JSON or its text): a plan is a template most callers send again
// and again with other inputs, a few kilobytes. At most ~256 × 16 Ki characters and their
// plans: a few megabytes at worst.
const keptContents = 256
const maxContentCharacters = 16 * 1024

/**
 * The plans this process has validated, so a run does not validate its plan again:
 * - by run id, the plan validated as the run was accepted here, until the run starts;
 * - by content, every plan validated here, as a request sent it or as it was stored: a plan
 *   sent again (the same template, other inputs) or a run accepted by another process and
 *   executed here is validated once per process, not once per run.
 * A validated plan is frozen, so one is shared by every run of it. A plan that fails its
 * validation is not kept: it is checked again each time, and refused the same way.
 *
 * @example
 * const plan = plans.validate(request.body.plan); plans.keep(id, plan)
 * const plan = plans.take(run.id) ?? plans.validate(run.plan)
 */
export function createValidatedPlans(validate: (source: string | object) => Plan) {
  const byRun = new Map<string, Plan>()
  const oldestRun = new OldestFirst(byRun)
  const byContent = new Map<string, Plan>()
  const leastUsed = new OldestFirst(byContent)
  return {
    /** The plan validated (or the one kept for the same content); throws what validation throws. */
    validate(source: string | object): Plan {
      // Text and parsed JSON apart: the same characters are a different plan as YAML text.
      const key = typeof source === 'string' ? `t${source}` : `j${JSON.stringify(source)}`
      const known = byContent.get(key)
      if (known) {
        // Used again: the last to go.
        byContent.delete(key)
        byContent.set(key, known)
        return known
      }
      const plan = validate(source)
      if (key.length <= maxContentCharacters) {
        byContent.set(key, plan)
        leastUsed.trimTo(keptContents)
      }
      return plan
    },
    keep(runId: string, plan: Plan): void {
      byRun.set(runId, plan)
      oldestRun.trimTo(keptRuns)
    },
    take(runId: string): Plan | undefined {
      const plan = byRun.get(runId)
      byRun.delete(runId)
      return plan
    },
  }
}

export type ValidatedPlans = ReturnType<typeof createValidatedPlans>
