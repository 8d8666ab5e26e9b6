import { BatonError } from '@baton/core'

/** A rail could not start, take, or carry an envelope. */
export class TransportError extends BatonError {
  override name = 'TransportError'
  readonly transport: string
  constructor(options: {
    transport: string
    message: string
    envelopeId?: string
    cause?: unknown
  }) {
    super('TRANSPORT_FAILED', `${options.transport} rail: ${options.message}`, {
      details: {
        transport: options.transport,
        ...(options.envelopeId ? { envelopeId: options.envelopeId } : {}),
      },
      cause: options.cause,
    })
    this.transport = options.transport
  }
}
