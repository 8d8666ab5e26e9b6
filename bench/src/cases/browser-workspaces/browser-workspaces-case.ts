import type { BenchCase, Size } from '../types'

/** Browser sub-agents working at once. */
export const browserAgentsOf = (size: Size): number => (size === 'full' ? 20 : 2)

/** The memory target per context beyond the shared browser, MiB. */
const CONTEXT_MIB = 40

/**
 * Browser sub-agents at once: each opens a page on 127.0.0.1 and reads it in a context of its
 * own of one shared Chromium. The figure is the time from `delegate` to each one's first
 * `read_page` (median); the memory is the Chromium processes' RSS beyond the shared browser,
 * per context.
 */
export const browserWorkspacesCase: BenchCase = {
  name: 'browser',
  work: (size) =>
    `${browserAgentsOf(size)} browser sub-agents at once: ms to the first read_page (median), RSS per context`,
  unit: 'ms',
  target: {
    text: `≤ ${CONTEXT_MIB} MiB per context beyond the shared browser`,
    met: (baton) => Number(baton.details?.mibPerContext) <= CONTEXT_MIB,
  },
  subjects: ['baton'],
  load: async () => (await import('./browser-workspaces-subjects')).browserWorkspacesSubjects,
}
