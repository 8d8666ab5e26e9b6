import { BatonError } from '@baton/core'
import type { Envelope } from '../envelope/envelope'

/**
 * A subscriber threw (or its promise rejected) while handling an envelope, or an envelope that
 * arrived over a rail was refused. Other subscribers still got the envelope.
 */
export class DeliveryError extends BatonError {
  override name = 'DeliveryError'
  readonly envelope: Envelope | undefined
  readonly agentId: string | undefined
  constructor(options: { message: string; envelope?: Envelope; agentId?: string; cause: unknown }) {
    super('DELIVERY_FAILED', options.message, {
      details: {
        ...(options.envelope
          ? { envelopeId: options.envelope.id, correlationId: options.envelope.correlationId }
          : {}),
        ...(options.agentId ? { agentId: options.agentId } : {}),
      },
      cause: options.cause,
    })
    this.envelope = options.envelope
    this.agentId = options.agentId
  }
}
