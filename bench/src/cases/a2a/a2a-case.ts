import { loadSeconds } from '../http-agent/http-agent-case'
import type { BenchCase } from '../types'

/** A2A `SendMessage` to a hosted agent, beside the SDK's own reference server. */
export const a2aCase: BenchCase = {
  name: 'a2a',
  work: (size) =>
    `A2A \`SendMessage\`, requests/s (autocannon, 10 connections, ${loadSeconds(size)} s; bare = the SDK's Express reference server, echo executor)`,
  unit: 'requests/s',
  higherIsBetter: true,
  target: {
    text: "≥ 2× the SDK's reference server",
    met: (baton, others) => others.bare !== undefined && baton.value >= 2 * others.bare.value,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./a2a-subjects')).a2aSubjects,
}
