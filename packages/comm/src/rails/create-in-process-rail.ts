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
  return {
    name: 'in-process',
    async start(next) {
      receiver = next
    },
    async publish(envelope) {
      if (closed || !receiver) {
        throw new TransportError({
          transport: 'in-process',
          message: closed ? 'the rail is closed' : 'the rail was not started',
          envelopeId: envelope.id,
        })
      }
      await receiver(envelope)
    },
    async close() {
      closed = true
      receiver = undefined
    },
  }
}
