import type { BenchCase } from '../types'
import { hops } from './hops'

/** Delegation chain: N hand-offs in a row, each one model call on the instant model. */
export const chainCase: BenchCase = {
  name: 'chain',
  work: (size) => `delegation chain, µs per hop (${hops(size)} MAL \`delegate\` steps)`,
  unit: 'µs/hop',
  target: { text: '≤ 10', met: (baton) => baton.value <= 10 },
  subjects: ['bare', 'langgraph', 'agents', 'baton'],
  load: async () => (await import('./chain-subjects')).chainSubjects,
}
