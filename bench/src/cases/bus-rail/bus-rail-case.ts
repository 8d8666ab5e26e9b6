import type { BenchCase, Size } from '../types'

/**
 * The long run and the short one its per-message cost is compared with. The long run is past
 * the rail's window of ids it remembers (100 000) and the bus's (10 000): what a bus that has
 * run a while pays for each envelope.
 */
export const railMessageCounts = (size: Size): [number, number] =>
  size === 'full' ? [250_000, 10_000] : [5_000, 1_000]

/** Most the per-message cost of the long run may be over the short one's. */
export const RAIL_GROWTH = 1.2

/** Two buses in one process over the WebSocket rail on 127.0.0.1: what a long-running rail costs. */
export const busRailCase: BenchCase = {
  name: 'bus-rail',
  work: (size) => {
    const [long, short] = railMessageCounts(size)
    return `bus over the WebSocket rail (two buses, 127.0.0.1), messages/s at ${long.toExponential()} (per-message cost ${long.toExponential()} ÷ ${short.toExponential()})`
  },
  unit: 'messages/s',
  higherIsBetter: true,
  target: {
    text: `per-message cost flat as the rail runs (≤ ${RAIL_GROWTH})`,
    met: (baton) => Number(baton.details?.costGrowth) <= RAIL_GROWTH,
  },
  subjects: ['baton'],
  load: async () => (await import('./bus-rail-subjects')).busRailSubjects,
}
