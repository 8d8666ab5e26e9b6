import { aloneLoadText } from '../http-load/load-seconds'
import type { BenchCase } from '../types'

/**
 * `POST /api/v1/runs` of a one-step plan (a `delegate` to the seeded analyst on the instant
 * model): runs accepted per second under load, their p99, and the runs finished per second
 * once the queue has settled.
 */
export const runsCase: BenchCase = {
  name: 'runs',
  work: (size) =>
    `\`POST /api/v1/runs\` of a one-step plan, runs accepted/s (autocannon, 10 connections, ${aloneLoadText(size)}, the warm-up's runs finished first), then runs finished/s`,
  unit: 'runs/s',
  higherIsBetter: true,
  target: {
    text: '≥ 500 accepted/s with p99 ≤ 50 ms; ≥ 300 finished/s; ≤ 2 queries per committed step',
    met: (baton) =>
      baton.value >= 500 &&
      Number(baton.details?.p99Ms) <= 50 &&
      Number(baton.details?.finishedPerSecond) >= 300,
  },
  subjects: ['baton'],
  load: async () => (await import('./runs-subjects')).runsSubjects,
}
