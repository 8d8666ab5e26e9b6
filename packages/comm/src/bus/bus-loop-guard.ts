import { createMemoryLoopGuard } from '../loop-guard/create-memory-loop-guard'
import { isLoopGuard } from '../loop-guard/is-loop-guard'
import type { LoopGuard } from '../loop-guard/loop-guard'
import type { MessageBusOptions } from './message-bus'
import type { RetentionOptions } from './message-history'

/**
 * The loop guard a bus uses: the one it was given (shared, closed by whoever made it), or its
 * own in-memory guard, which forgets conversations as the bus's history does and which the bus
 * closes (`owned`).
 *
 * @example
 * const { loopGuard, owned } = busLoopGuard({ maxHops: 4 }, DEFAULT_RETENTION, Date.now)
 */
export function busLoopGuard(
  guard: MessageBusOptions['loopGuard'],
  retention: Required<RetentionOptions>,
  now: () => number,
): { loopGuard: LoopGuard; owned: boolean } {
  if (isLoopGuard(guard)) return { loopGuard: guard, owned: false }
  const loopGuard = createMemoryLoopGuard({
    ...guard,
    maxAgeMs: retention.maxAgeMs,
    maxCorrelations: retention.maxCorrelations,
    now,
  })
  return { loopGuard, owned: true }
}
