import type { BenchCase } from '../types'

/** The worker counts measured, in order. */
export const WORKER_COUNTS = [1, 2, 3] as const

/**
 * Scale-out: one-step runs through 1, 2 and 3 server processes sharing one PostgreSQL and one
 * Redis, runs finished per second and the server processes' CPU per run (summed over them).
 */
export const scaleOutCase: BenchCase = {
  name: 'scale-out',
  work: () =>
    `scale-out: one-step runs through 1, 2 and 3 server processes on one PostgreSQL and one Redis, runs/s (16 runs in flight per process; CPU ms per run once warm, summed over the processes, the median of three windows of 1 000 runs [their range], over the first 5 000 runs per process, and with 16 in flight shared by all; PostgreSQL's transactions and Redis's commands and CPU per run, as they count them, the bench's polls for the runs' end included)`,
  unit: 'runs/s',
  higherIsBetter: true,
  target: {
    text: '≤ 3 ms CPU per run, flat from 1 to 3 workers (3 workers ≤ 1.2× 1 worker)',
    met: (baton) => {
      const one = Number(baton.details?.cpuMsPerRun1)
      const three = Number(baton.details?.cpuMsPerRun3)
      return three <= 3 && one <= 3 && three <= one * 1.2
    },
  },
  subjects: ['baton'],
  load: async () => (await import('./scale-out-subjects')).scaleOutSubjects,
}
