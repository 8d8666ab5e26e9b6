import type { BenchCase, Size } from '../types'

/** How many agent runs are timed (after a warm-up of as many). */
export const runCount = (size: Size): number => (size === 'full' ? 2000 : 50)

/** `runAgent` in a loop: one run, one model call, nothing else. */
export const runAgentCase: BenchCase = {
  name: 'run-agent',
  work: () => '`runAgent` in a loop, µs per call',
  unit: 'µs/call',
  target: { text: '≤ 5', met: (baton) => baton.value <= 5 },
  subjects: ['bare', 'langgraph', 'agents', 'baton'],
  load: async () => (await import('./run-agent-subjects')).runAgentSubjects,
}
