import { BatonError } from '@baton/core'
import type { Envelope } from '../envelope/envelope'
import type { ConflictProblem, MessageRecord } from './loop-guard'

const explanations: Record<ConflictProblem, (recorded: MessageRecord) => string> = {
  'id-reused': (recorded) =>
    `its id was already used for another message (correlation "${recorded.correlationId}", hop ${recorded.hop})`,
  correlation: (recorded) =>
    `it answers message "${recorded.id}" of correlation "${recorded.correlationId}" but claims another correlation`,
  hop: (recorded) =>
    `it answers message "${recorded.id}" (hop ${recorded.hop}) but does not claim hop ${recorded.hop + 1}`,
}

/**
 * A message the loop guard refused because it contradicts what the guard recorded: an id
 * reused for other content, or a reply/forward whose correlation or hop disagrees with the
 * message its `inReplyTo` names (a way to escape a held or stopped chain). Nothing was delivered.
 */
export class MessageConflictError extends BatonError {
  override name = 'MessageConflictError'
  readonly problem: ConflictProblem
  readonly envelopeId: string
  readonly recorded: MessageRecord

  constructor(envelope: Envelope, problem: ConflictProblem, recorded: MessageRecord) {
    super(
      'MESSAGE_CONFLICT',
      `Message "${envelope.id}" (correlation "${envelope.correlationId}", hop ${envelope.hop}) was refused: ${explanations[problem](recorded)}.`,
      {
        details: {
          problem,
          envelopeId: envelope.id,
          correlationId: envelope.correlationId,
          hop: envelope.hop,
          recordedId: recorded.id,
          recordedCorrelationId: recorded.correlationId,
          recordedHop: recorded.hop,
        },
      },
    )
    this.problem = problem
    this.envelopeId = envelope.id
    this.recorded = recorded
  }
}
