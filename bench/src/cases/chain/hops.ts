import type { Size } from '../types'

/** How many hand-offs the chain makes. */
export const hops = (size: Size): number => (size === 'full' ? 1000 : 50)
