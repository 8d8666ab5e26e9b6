import { BatonError } from '@baton/core'
import type { Escalation } from './escalation'

export type LoopGuardErrorCode = 'LOOP_GUARD_ESCALATED' | 'LOOP_GUARD_STOPPED' | 'LOOP_GUARD_SELF'

/**
 * A message the loop guard would not deliver: its chain went past `maxHops` and waits for a
 * person (`LOOP_GUARD_ESCALATED`), a person stopped the chain (`LOOP_GUARD_STOPPED`), or an
 * agent addressed itself (`LOOP_GUARD_SELF`).
 */
export class LoopGuardError extends BatonError {
  override name = 'LoopGuardError'
  override readonly code: LoopGuardErrorCode
  readonly correlationId: string
  readonly escalation: Escalation | undefined

  constructor(options: {
    code: LoopGuardErrorCode
    message: string
    correlationId: string
    escalation?: Escalation
  }) {
    super(options.code, options.message, {
      details: {
        correlationId: options.correlationId,
        ...(options.escalation
          ? { escalationId: options.escalation.id, hops: options.escalation.hops }
          : {}),
      },
    })
    this.code = options.code
    this.correlationId = options.correlationId
    this.escalation = options.escalation
  }
}
