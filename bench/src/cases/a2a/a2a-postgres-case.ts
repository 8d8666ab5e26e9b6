import { aloneLoadText } from '../http-load/load-seconds'
import { pairedLoadText, shareOfReference } from '../http-load/paired-figure'
import type { BenchCase } from '../types'

/** The `a2a` row with the server on PostgreSQL instead of PGlite. */
export const a2aPostgresCase: BenchCase = {
  name: 'a2a-postgres',
  work: (size) =>
    `A2A \`SendMessage\` on PostgreSQL, requests/s (${pairedLoadText(size)}; a throw-away cluster on 127.0.0.1; bare = the SDK's Express reference server, echo executor, alone, ${aloneLoadText(size)})`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 75% of the SDK's reference server (which keeps nothing) on PostgreSQL; ≤ 3 queries per message",
    met: (baton) =>
      shareOfReference(baton) >= 0.75 &&
      Number(baton.details?.queriesPerRequest ?? Number.POSITIVE_INFINITY) <= 3,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./a2a-subjects')).a2aPostgresSubjects,
}
