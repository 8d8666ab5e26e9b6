import { BatonError } from '@baton/core'

/** A call on a bus after `close()`. */
export class MessageBusClosedError extends BatonError {
  override name = 'MessageBusClosedError'
  constructor(action: string) {
    super('BUS_CLOSED', `Cannot ${action}: the message bus is closed.`, { details: { action } })
  }
}
