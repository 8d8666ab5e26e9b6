import type { BenchCase, Size } from '../types'

/** The long run and the short one its per-message cost is compared with. */
export const messageCounts = (size: Size): [number, number] =>
  size === 'full' ? [1_000_000, 10_000] : [20_000, 2_000]

/** Most the per-message cost of the long run may be over the short one's. */
const GROWTH = 1.2

/** The bus with its loop guard: conversations of a send and three forwards. */
export const busCase: BenchCase = {
  name: 'bus',
  work: (size) => {
    const [long, short] = messageCounts(size)
    return `bus with loop guard, messages/s at ${long.toExponential()} (per-message cost ${long.toExponential()} ÷ ${short.toExponential()})`
  },
  unit: 'messages/s',
  higherIsBetter: true,
  target: {
    text: `≥ 2 M (≤ ${GROWTH})`,
    met: (baton) => baton.value >= 2_000_000 && Number(baton.details?.costGrowth) <= GROWTH,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./bus-subjects')).busSubjects,
}
