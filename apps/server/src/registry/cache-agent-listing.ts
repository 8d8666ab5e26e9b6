import { createHash } from 'node:crypto'
import type { AgentsRepository, ListAgentsOptions } from '../db/agents-repository'
import { keepAnswers } from './keep-answers'

/** `GET /api/v1/agents`'s answer for one query: its JSON and that JSON's entity tag. */
export type AgentPage = { body: string; etag: string }

export type CachedAgentListing = {
  /** The repository, its `list`, `findById` and `registrationOf` answered from memory while nothing changed. */
  agents: AgentsRepository
  /**
   * The list route's answer to `query` (`{ agents, total, limit, offset }`), serialised once
   * and kept with the page it was made from: dropped by the same writes and invalidations.
   */
  page(query: ListAgentsOptions): Promise<AgentPage>
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
 * const { body, etag } = await listing.page({ limit: 50, offset: 0 }) // serialised once
 * listing.invalidate() // after a registration committed
 */
export function cacheAgentListing(
  agents: AgentsRepository,
  options: { ttlMs?: number; maxPages?: number; now?: () => number } = {},
): CachedAgentListing {
  // Pages of `list` (and their serialised answers), cards by id and registrations by wallet,
  // `maxPages` of each kind.
  const kept = keepAnswers({
    ttlMs: options.ttlMs ?? 30_000,
    maxEntries: (options.maxPages ?? 256) * 4,
    ...(options.now ? { now: options.now } : {}),
  })
  const invalidate = () => kept.clear()

  const cached: AgentsRepository = { ...agents }
  const keyOf = (query: ListAgentsOptions) =>
    JSON.stringify([
      query.limit,
      query.offset,
      query.capability ?? null,
      query.type ?? null,
      query.text ?? null,
    ])
  // Concurrent first readers of one page share one read.
  cached.list = (query: ListAgentsOptions) =>
    kept.read(`list:${keyOf(query)}`, () => agents.list(query))
  // The route's answer, serialised from the kept page: no JSON.stringify and no hash per request.
  const page = (query: ListAgentsOptions) =>
    kept.read(`page:${keyOf(query)}`, async () => {
      const { agents: listed, total } = await cached.list(query)
      const body = JSON.stringify({
        agents: listed,
        total,
        limit: query.limit,
        offset: query.offset,
      })
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      return { body, etag }
    })
  // A hosted agent's card (by id) and its registration are read on every A2A message and run:
  // kept the same way, by their argument.
  cached.findById = (id) => kept.read(`findById:${id}`, () => agents.findById(id))
  cached.registrationOf = (wallet) =>
    kept.read(`registrationOf:${wallet}`, () => agents.registrationOf(wallet))
  for (const name of writes) {
    const write = (agents[name] as (...args: unknown[]) => Promise<unknown>).bind(agents)
    ;(cached as Record<string, unknown>)[name] = kept.clearing(write)
  }
  return { agents: cached, page, invalidate }
}
