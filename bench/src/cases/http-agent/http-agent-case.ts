import { aloneLoadText } from '../http-load/load-seconds'
import { pairedLoadText, shareOfReference } from '../http-load/paired-figure'
import type { BenchCase } from '../types'

/** The registry route of the Baton server beside fastify's hello-world. */
export const httpAgentCase: BenchCase = {
  name: 'http-agent',
  work: (size) =>
    `HTTP \`GET /agent/:wallet\`, requests/s (${pairedLoadText(size)}; bare = fastify hello-world alone, ${aloneLoadText(size)})`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 50% of fastify hello-world's",
    met: (baton) => shareOfReference(baton) >= 0.5,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./http-agent-subjects')).httpAgentSubjects,
}
