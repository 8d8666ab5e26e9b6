import type { LoopGuard } from './loop-guard'

/**
 * True for a loop guard object, as opposed to the options for an in-memory one.
 *
 * @example
 * isLoopGuard(createMemoryLoopGuard()) // true
 * isLoopGuard({ maxHops: 3 }) // false
 */
export function isLoopGuard(value: unknown): value is LoopGuard {
  return typeof value === 'object' && value !== null && 'admit' in value && 'allow' in value
}
