import type { BenchCase, Size } from '../types'

/** How many delegations are timed, one after another (after a warm-up of a fifth as many). */
export const delegateCount = (size: Size): number => (size === 'full' ? 200 : 5)

/**
 * One delegation to the seeded analyst on a Baton server (in this process, the instant model
 * in place of its card model): the `delegate` tool over `/mcp` with the SDK's `Client`, against
 * the same one-step run started over `POST /api/v1/runs` and followed on its event stream
 * until it ends (bare). Both are a run with its events, ledger and receipt; the row shows what
 * the MCP session and its waiting add.
 */
export const mcpDelegateCase: BenchCase = {
  name: 'mcp-delegate',
  work: () =>
    '`delegate` over /mcp, ms per delegation (bare = the same run over POST /api/v1/runs + its events)',
  unit: 'ms/delegation',
  target: {
    text: '≤ 1.2× the HTTP API',
    met: (baton, others) => others.bare !== undefined && baton.value <= 1.2 * others.bare.value,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./mcp-delegate-subjects')).mcpDelegateSubjects,
}
