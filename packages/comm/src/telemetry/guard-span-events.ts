import { trace } from '@opentelemetry/api'
import type { Escalation } from '../loop-guard/escalation'

/**
 * Puts a loop-guard decision on the active span as an event: `baton.loop_guard.hold` when a
 * chain is held for a person, `baton.loop_guard.allow` / `baton.loop_guard.stop` when a person
 * decides (on the span of the request that decided).
 *
 * @example
 * recordGuardEvent(escalation)
 */
export function recordGuardEvent(escalation: Escalation): void {
  const span = trace.getActiveSpan()
  if (!span?.isRecording()) return
  const name =
    escalation.status === 'open'
      ? 'baton.loop_guard.hold'
      : escalation.status === 'allowed'
        ? 'baton.loop_guard.allow'
        : 'baton.loop_guard.stop'
  span.addEvent(name, {
    'baton.escalation.id': escalation.id,
    'baton.correlation.id': escalation.correlationId,
  })
}
