import { OldestFirst } from '@baton/core'
import type { Plan } from '@baton/mal'

// Plans of runs accepted here and not yet started: enough for a burst of runs queued at once;
// past it the oldest are forgotten (their runs validate their stored plan again).
const kept = 1000

/**
 * The plans this process validated as it accepted their runs, by run id, so a run executed
 * here starts from its validated (frozen) plan instead of validating the stored copy again.
 * A run executed by another process, or after a restart, validates its stored plan.
 *
 * @example
 * plans.keep(id, parsePlan(text)); const plan = plans.take(id) ?? run.plan
 */
export function createValidatedPlans() {
  const plans = new Map<string, Plan>()
  const oldest = new OldestFirst(plans)
  return {
    keep(runId: string, plan: Plan): void {
      plans.set(runId, plan)
      oldest.trimTo(kept)
    },
    take(runId: string): Plan | undefined {
      const plan = plans.get(runId)
      plans.delete(runId)
      return plan
    },
  }
}

export type ValidatedPlans = ReturnType<typeof createValidatedPlans>
