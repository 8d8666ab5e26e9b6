import type { BenchCase, Size } from '../types'

/** How many branches the `fanout` step has. */
export const branchCount = (size: Size): number => (size === 'full' ? 1000 : 50)

/** A MAL `fanout` step whose branches each make one `models_call` on the instant model. */
export const malFanoutCase: BenchCase = {
  name: 'mal-fanout',
  work: (size) => `MAL \`fanout\` of ${branchCount(size)} branches, total ms / peak RSS Δ`,
  unit: 'ms',
  target: {
    text: '≤ 20 ms / ≤ 8 MiB',
    met: (baton) => baton.value <= 20 && (baton.memoryMiB ?? Infinity) <= 8,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./mal-fanout-subjects')).malFanoutSubjects,
}
