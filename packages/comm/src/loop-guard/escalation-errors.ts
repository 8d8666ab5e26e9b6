import { BatonError } from '@baton/core'
import type { EscalationStatus } from './escalation'

/** `allow` or `stop` named an escalation the loop guard does not know (or no longer keeps). */
export class EscalationNotFoundError extends BatonError {
  override name = 'EscalationNotFoundError'
  constructor(escalationId: string) {
    super('ESCALATION_NOT_FOUND', `No escalation "${escalationId}" is known to the loop guard.`, {
      details: { escalationId },
    })
  }
}

/** `allow` or `stop` on an escalation a person already resolved. */
export class EscalationResolvedError extends BatonError {
  override name = 'EscalationResolvedError'
  constructor(escalationId: string, status: EscalationStatus) {
    super(
      'ESCALATION_ALREADY_RESOLVED',
      `Escalation "${escalationId}" is already ${status}; only an open escalation can be allowed or stopped.`,
      { details: { escalationId, status } },
    )
  }
}
