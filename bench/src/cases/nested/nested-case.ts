import type { BenchCase, Size } from '../types'

/** The depths measured: a shallow tree and a deep one, to see whether a level's cost grows. */
export const depthsOf = (size: Size): [number, number] => (size === 'full' ? [50, 1000] : [10, 40])

/** Flat in depth: a level of the deep tree costs at most this many times one of the shallow. */
const FLAT = 1.5

/** Nested sub-agents: agent i delegates to agent i + 1 and waits for it. */
export const nestedCase: BenchCase = {
  name: 'nested',
  work: (size) => {
    const [shallow, deep] = depthsOf(size)
    return `nested sub-agents, ms per level (agent i delegates to i+1; depth ${shallow} and ${deep})`
  },
  unit: 'ms/level',
  target: {
    text: `≤ 0.05, flat in depth (deep ≤ ${FLAT}× shallow)`,
    met: (baton) => {
      const shallow = Number(baton.details?.shallowMs)
      const deep = baton.details?.deepMs
      return typeof deep === 'number' && deep <= 0.05 && deep <= FLAT * shallow
    },
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./nested-subjects')).nestedSubjects,
}
