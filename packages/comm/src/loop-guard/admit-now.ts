import type { Envelope } from '../envelope/envelope'
import type { Admission } from './loop-guard'

/**
 * The synchronous admit of a guard that decides in memory. A bus that finds it on its guard
 * calls it directly and saves a promise per message; other guards are awaited.
 */
export const ADMIT_NOW: unique symbol = Symbol('baton.admit-now')

/**
 * `fresh`: the bus built the envelope just now with a new random id, which no guard can know
 * yet, so looking the id up can be skipped.
 */
export type AdmitsNow = { [ADMIT_NOW]: (envelope: Envelope, fresh?: boolean) => Admission }

/**
 * True for a guard that offers `ADMIT_NOW`.
 *
 * @example
 * if (admitsNow(guard)) guard[ADMIT_NOW](envelope)
 */
export function admitsNow(guard: object): guard is AdmitsNow {
  return typeof (guard as Partial<AdmitsNow>)[ADMIT_NOW] === 'function'
}
