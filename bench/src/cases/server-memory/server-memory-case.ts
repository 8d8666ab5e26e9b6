import type { BenchCase, Size } from '../types'

/** Agents registered and server-sent-event clients held open at each size. */
export const memoryLoad = (size: Size) =>
  size === 'full' ? { agents: 10_000, clients: 1_000 } : { agents: 100, clients: 20 }

/**
 * The Baton server's resident memory, from its build started as `pnpm start` does and read
 * from outside by its PID: idle on the embedded database (after start and the demo's seed),
 * then holding many registered agents and many open SSE clients.
 */
export const serverMemoryCase: BenchCase = {
  name: 'server-memory',
  work: (size) => {
    const { agents, clients } = memoryLoad(size)
    return `Baton server (production build) RSS, MiB: idle (PGlite), then Δ with ${agents} agents registered and ${clients} SSE clients open (WebAssembly and other memory outside the JS heap apart)`
  },
  unit: 'MiB',
  target: {
    text: 'idle ≤ 250 MiB; Δ ≤ 300 MiB',
    met: (baton) => Number(baton.details?.idleMiB) <= 250 && baton.value <= 300,
  },
  subjects: ['baton'],
  load: async () => (await import('./server-memory-subjects')).serverMemorySubjects,
}
