import type { Size } from '../types'

/** How long autocannon loads each server. */
export const loadSeconds = (size: Size): number => (size === 'full' ? 10 : 1)

/** How long each server is loaded first, unmeasured, to be measured warm. */
export const warmUpSeconds = (size: Size): number => (size === 'full' ? 5 : 1)

/** How a server loaded alone is loaded, for a row's label. */
export const aloneLoadText = (size: Size): string =>
  `${loadSeconds(size)} s after ${warmUpSeconds(size)} s of warm-up`
