import type { AgentsRepository, ListAgentsOptions } from '../db/agents-repository'
import { keepAnswers } from './keep-answers'

export type CachedAgentListing = {
  /** The repository, its `list`, `findById` and `registrationOf` answered from memory while nothing changed. */
  agents: AgentsRepository
  /** Forgets every page: an agent changed here or in another process. */
  invalidate(): void
}

// The repository's writes: each drops the cached pages (before and after it runs, so a page
// read while a write's transaction was open is not kept once it commits).
const writes = ['insert', 'update', 'revoke', 'grantTrustTier'] as const

/**
 * The agent directory served from memory: a page of `list` (by its filters), an agent by id
 * and a wallet's registration are kept until an
 * agent changes — a write through this repository, or `invalidate()`, which the registry calls
 * on every invalidation (scaled out, on every process's, through Redis) — or `ttlMs` passes,
 * the bound on staleness if an invalidation is lost. At most about `maxPages` answers of each kind are kept.
 *
 * @example
 * const listing = cacheAgentListing(repositories.agents)
 * await listing.agents.list({ limit: 50, offset: 0 }) // a query the first time only
 * listing.invalidate() // after a registration committed
 */
export function cacheAgentListing(
  agents: AgentsRepository,
  options: { ttlMs?: number; maxPages?: number; now?: () => number } = {},
): CachedAgentListing {
  // Pages of `list`, cards by id and registrations by wallet, `maxPages` of each kind.
  const kept = keepAnswers({
    ttlMs: options.ttlMs ?? 30_000,
    maxEntries: (options.maxPages ?? 256) * 3,
    ...(options.now ? { now: options.now } : {}),
  })
  const invalidate = () => kept.clear()

  const cached: AgentsRepository = { ...agents }
  cached.list = (query: ListAgentsOptions) => {
    const key = JSON.stringify([
      query.limit,
      query.offset,
      query.capability ?? null,
      query.type ?? null,
      query.text ?? null,
    ])
    // Concurrent first readers of one page share one read.
    return kept.read(`list:${key}`, () => agents.list(query))
  }
  // A hosted agent's card (by id) and its registration are read on every A2A message and run:
  // kept the same way, by their argument.
  cached.findById = (id) => kept.read(`findById:${id}`, () => agents.findById(id))
  cached.registrationOf = (wallet) =>
    kept.read(`registrationOf:${wallet}`, () => agents.registrationOf(wallet))
  for (const name of writes) {
    const write = (agents[name] as (...args: unknown[]) => Promise<unknown>).bind(agents)
    ;(cached as Record<string, unknown>)[name] = kept.clearing(write)
  }
  return { agents: cached, invalidate }
}
