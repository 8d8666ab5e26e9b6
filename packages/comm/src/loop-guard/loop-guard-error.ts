import { BatonError } from '@baton/core'
import type { Envelope } from '../envelope/envelope'
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
  /**
   * For `LOOP_GUARD_ESCALATED`: true when this very message is the escalation's held message
   * (a person's `allow` delivers it), false when it was dropped because the chain already
   * waited on an open escalation (it will never be delivered). Always false for other codes.
   */
  readonly held: boolean

  constructor(options: {
    code: LoopGuardErrorCode
    message: string
    correlationId: string
    escalation?: Escalation
    held?: boolean
  }) {
    const held = options.held ?? false
    super(options.code, options.message, {
      details: {
        correlationId: options.correlationId,
        held,
        ...(options.escalation
          ? { escalationId: options.escalation.id, hops: options.escalation.hops }
          : {}),
      },
    })
    this.code = options.code
    this.correlationId = options.correlationId
    this.escalation = options.escalation
    this.held = held
  }

  /**
   * The chain went past its limit and a person must decide. `held` says whether this message
   * is the one the escalation holds (delivered if a person allows) or was dropped because the
   * chain already waited on an open escalation.
   */
  static escalated(escalation: Escalation, held: boolean): LoopGuardError {
    const fate = held
      ? `this message is held and is delivered if a person allows the chain`
      : `this message was dropped and will not be delivered; the escalation holds message "${escalation.lastMessage.id}"`
    return new LoopGuardError({
      code: 'LOOP_GUARD_ESCALATED',
      message: `Correlation "${escalation.correlationId}" went past its hop limit after ${escalation.hops} hops (${escalation.path.join(' → ')}); it waits for a person (escalation "${escalation.id}"): ${fate}.`,
      correlationId: escalation.correlationId,
      escalation,
      held,
    })
  }

  /** A person stopped the chain `envelope` belongs to. */
  static stopped(envelope: Envelope, escalation: Escalation | undefined): LoopGuardError {
    const reason = escalation?.reason ? ` (${escalation.reason})` : ''
    return new LoopGuardError({
      code: 'LOOP_GUARD_STOPPED',
      message: `Correlation "${envelope.correlationId}" was stopped by a person${reason}; message "${envelope.id}" was not delivered.`,
      correlationId: envelope.correlationId,
      ...(escalation ? { escalation } : {}),
    })
  }

  /** An agent addressed itself. */
  static selfSend(envelope: Envelope): LoopGuardError {
    return new LoopGuardError({
      code: 'LOOP_GUARD_SELF',
      message: `Agent "${envelope.from.agentId}" cannot send a message to itself (correlation "${envelope.correlationId}").`,
      correlationId: envelope.correlationId,
    })
  }
}
