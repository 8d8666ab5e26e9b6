import { ValidationError } from '@baton/core'

/**
 * Refuses an allowance that is not a whole number ≥ 1 before a guard changes anything: `NaN`
 * or `Infinity` would make a chain unlimited, and 0, a negative or a fraction would leave the
 * held message undeliverable (a person who wants no more hops stops the chain instead).
 *
 * @example
 * assertExtraHops('esc_1', 2) // passes; assertExtraHops('esc_1', 1.5) throws ValidationError
 */
export function assertExtraHops(
  escalationId: string,
  extraHops: unknown,
): asserts extraHops is number {
  if (typeof extraHops === 'number' && Number.isSafeInteger(extraHops) && extraHops >= 1) return
  throw new ValidationError(`allowance for escalation "${escalationId}"`, [
    { path: 'extraHops', message: `expected a whole number ≥ 1, got ${String(extraHops)}` },
  ])
}
