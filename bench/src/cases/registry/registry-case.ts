import type { BenchCase, Size } from '../types'

/** Cached look-ups timed, and concurrent cold look-ups of one wallet. */
export const lookUps = (size: Size): { cached: number; cold: number } =>
  size === 'full' ? { cached: 1_000_000, cold: 1000 } : { cached: 10_000, cold: 100 }

/** The HTTP registry client against a real registry server on 127.0.0.1. */
export const registryCase: BenchCase = {
  name: 'registry',
  work: (size) =>
    `registry: cached \`ensureRegisteredAgent\` ns/op; ${lookUps(size).cold} concurrent cold look-ups → requests made`,
  unit: 'ns/op',
  target: { text: 'requests made: 1', met: (baton) => baton.details?.coldRequests === 1 },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./registry-subjects')).registrySubjects,
}
