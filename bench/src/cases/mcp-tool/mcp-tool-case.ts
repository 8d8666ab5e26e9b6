import type { BenchCase, Size } from '../types'

/** How many tool calls one timed loop makes (after a second of warm-up). */
export const mcpCallCount = (size: Size): number => (size === 'full' ? 1000 : 30)

/**
 * One MCP tool call of a stdio server: the SDK's `Client` calling it directly (bare) against
 * a Baton agent run on the offline model whose one tool call goes to the same server through
 * `@baton/core/mcp` (card gating, budget reservation, result mapping, two model calls).
 */
export const mcpToolCase: BenchCase = {
  name: 'mcp-tool',
  work: () => 'an MCP tool call (stdio), µs per call',
  unit: 'µs/call',
  target: {
    text: '≤ 1.2× the SDK client alone',
    met: (baton, others) => others.bare !== undefined && baton.value <= 1.2 * others.bare.value,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./mcp-tool-subjects')).mcpToolSubjects,
}
