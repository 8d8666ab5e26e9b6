import type { Plan } from '../plan'

// Plans this package validated. They are deep-frozen when marked, so a mark stays true.
const validated = new WeakSet<object>()

/**
 * Marks a plan as validated and freezes it (every step, all the way down).
 *
 * @example
 * return markValidated(parsed.data)
 */
export function markValidated(plan: Plan): Plan {
  deepFreeze(plan)
  validated.add(plan)
  return plan
}

/**
 * Whether `markValidated` marked this very object.
 *
 * @example
 * if (isValidatedPlan(source)) return source
 */
export function isValidatedPlan(value: unknown): value is Plan {
  return typeof value === 'object' && value !== null && validated.has(value)
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
}
