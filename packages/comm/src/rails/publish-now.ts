import type { Envelope } from '../envelope/envelope'

/**
 * The synchronous publish of a rail that hands every envelope straight to a receiver in this
 * process (the in-process rail): the receiver is called before it returns, and what the
 * receiver returned is returned (settled already when the bus took its own envelope back). It
 * throws what `publish` would reject with. A bus that finds it calls it directly and saves the
 * promises of a publish.
 */
export const PUBLISH_NOW: unique symbol = Symbol('baton.publish-now')

export type PublishesNow = { [PUBLISH_NOW]: (envelope: Envelope) => Promise<void> }

/**
 * True for a rail that offers `PUBLISH_NOW`.
 *
 * @example
 * if (publishesNow(rail)) rail[PUBLISH_NOW](envelope)
 */
export function publishesNow(transport: object): transport is PublishesNow {
  return typeof (transport as Partial<PublishesNow>)[PUBLISH_NOW] === 'function'
}
