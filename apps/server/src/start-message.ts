/** What the start message needs to know about the process that started. */
export type StartFacts = {
  url: string
  role: 'api' | 'worker' | 'all'
  dataDir: string
  database: { kind: 'pglite' | 'postgres'; location: string }
  seeded?: { created: boolean; agents: string[]; swarm: string; plans: string[] }
}

/**
 * The lines a server prints once it listens: where, what to open (a worker serves only its
 * health checks, so it names no playground), and where its database really is (PGlite
 * lives in `pglite/` under the data folder).
 *
 * @example
 * startMessage({ url: 'http://127.0.0.1:8787', role: 'all', dataDir: '.baton', database: { kind: 'pglite', location: '.baton/pglite' } })
 * // ['Baton server listening on http://127.0.0.1:8787', '  open http://127.0.0.1:8787/ (playground) or …', …]
 */
export function startMessage(facts: StartFacts): string[] {
  const { url, role, dataDir, database, seeded } = facts
  const lines = [`Baton server listening on ${url}`]
  lines.push(
    role === 'worker'
      ? `  a worker (BATON_ROLE=worker): it executes runs and answers ${url}/health and /ready only; open the playground and the HTTP API on an api or all process`
      : `  open ${url}/ (playground) or ${url}/docs (HTTP API)`,
  )
  lines.push(
    database.kind === 'postgres'
      ? '  database: PostgreSQL (DATABASE_URL); nothing is kept on local disk'
      : database.location === 'memory://'
        ? '  database: PGlite in memory (nothing is kept when the process ends)'
        : `  data folder: ${dataDir} — PGlite in ${database.location}`,
  )
  if (seeded) {
    lines.push(
      seeded.created
        ? `  seeded the demo: agents ${seeded.agents.join(', ')}; swarm ${seeded.swarm}; plans ${seeded.plans.join(', ')}`
        : `  demo already seeded: agents ${seeded.agents.join(', ')}; swarm ${seeded.swarm}`,
    )
  }
  return lines
}
