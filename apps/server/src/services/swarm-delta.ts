import type { SwarmEvent } from '@baton/mal'
import type { RunDelta } from './run-notifier'

/**
 * A swarm member's streamed text as a run's live delta: `op: 'swarm'`, `path` the call
 * (`r1/lead`), and the `sequence` of the last stored event, so an SSE reader gets it after the
 * events before it. `next` is the sequence the next stored event will take.
 *
 * @example
 * notifier.delta(swarmDelta(event, sequence))
 */
export function swarmDelta(
  event: Extract<SwarmEvent, { type: 'step-delta' }>,
  next: number,
): RunDelta {
  return { ...event, op: 'swarm', sequence: Math.max(0, next - 1), at: new Date().toISOString() }
}
