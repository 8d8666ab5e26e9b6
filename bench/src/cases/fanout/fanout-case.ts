import type { BenchCase, Size } from '../types'

/** How many sub-agents start at once. */
export const fanoutWidth = (size: Size): number => (size === 'full' ? 1000 : 50)

/** Fan-out: N sub-agents started together, then waited for together. */
export const fanoutCase: BenchCase = {
  name: 'fanout',
  work: (size) =>
    `fan-out of ${fanoutWidth(size)} sub-agents (\`delegate\` + \`waitAgents\`), total ms / peak RSS Δ`,
  unit: 'ms',
  target: {
    text: '≤ 30 ms / ≤ 8 MiB',
    met: (baton) => baton.value <= 30 && (baton.memoryMiB ?? Infinity) <= 8,
  },
  subjects: ['bare', 'langgraph', 'agents', 'baton'],
  load: async () => (await import('./fanout-subjects')).fanoutSubjects,
}
