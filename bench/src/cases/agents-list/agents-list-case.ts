import { aloneLoadText } from '../http-load/load-seconds'
import { pairedLoadText, shareOfReference } from '../http-load/paired-figure'
import type { BenchCase } from '../types'

/** The agent directory (`GET /api/v1/agents`, first page) beside fastify's hello-world. */
export const agentsListCase: BenchCase = {
  name: 'agents-list',
  work: (size) =>
    `HTTP \`GET /api/v1/agents\`, requests/s (${pairedLoadText(size)}; bare = fastify hello-world alone, ${aloneLoadText(size)})`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 20% of fastify hello-world's",
    met: (baton) => shareOfReference(baton) >= 0.2,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./agents-list-subjects')).agentsListSubjects,
}
