import { aloneLoadText } from '../http-load/load-seconds'
import { pairedLoadText, shareOfReference } from '../http-load/paired-figure'
import type { BenchCase } from '../types'

/** A2A `SendMessage` to a hosted agent, beside the SDK's own reference server. */
export const a2aCase: BenchCase = {
  name: 'a2a',
  work: (size) =>
    `A2A \`SendMessage\`, requests/s (${pairedLoadText(size)}; bare = the SDK's Express reference server, echo executor, alone, ${aloneLoadText(size)})`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 50% of the SDK's reference server (which keeps nothing) on PGlite; ≤ 3 queries per message",
    met: (baton) =>
      shareOfReference(baton) >= 0.5 &&
      Number(baton.details?.queriesPerRequest ?? Number.POSITIVE_INFINITY) <= 3,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./a2a-subjects')).a2aSubjects,
}
