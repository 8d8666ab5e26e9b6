import type { Envelope } from '../envelope/envelope'
import { PUBLISH_NOW, type PublishesNow } from './publish-now'
import type { Transport, TransportReceiver } from './transport'
import { TransportError } from './transport-error'

/**
 * The default rail: envelopes go straight to the bus that published them, in the same
 * process. Subscribers' synchronous work has run by the time `publish` resolves.
 *
 * @example
 * const bus = createMessageBus({ transport: createInProcessRail() })
 */
export function createInProcessRail(): Transport {
  let receiver: TransportReceiver | undefined
  let closed = false
  // The bus's receiver takes its own envelopes synchronously; what it returns then is settled.
  const publishNow = (envelope: Envelope): Promise<void> => {
    if (closed || !receiver) {
      throw new TransportError({
        transport: 'in-process',
        message: closed ? 'the rail is closed' : 'the rail was not started',
        envelopeId: envelope.id,
      })
    }
    return receiver(envelope)
  }
  const rail: Transport & PublishesNow = {
    name: 'in-process',
    async start(next) {
      receiver = next
    },
    async publish(envelope) {
      await publishNow(envelope)
    },
    [PUBLISH_NOW]: publishNow,
    async close() {
      closed = true
      receiver = undefined
    },
  }
  return rail
}
