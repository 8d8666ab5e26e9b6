import { loadSeconds } from '../http-agent/http-agent-case'
import type { BenchCase } from '../types'

/** The agent directory (`GET /api/v1/agents`, first page) beside fastify's hello-world. */
export const agentsListCase: BenchCase = {
  name: 'agents-list',
  work: (size) =>
    `HTTP \`GET /api/v1/agents\`, requests/s (autocannon, 10 connections, ${loadSeconds(size)} s; bare = fastify hello-world)`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 20% of fastify hello-world's",
    met: (baton, others) => others.bare !== undefined && baton.value >= 0.2 * others.bare.value,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./agents-list-subjects')).agentsListSubjects,
}
