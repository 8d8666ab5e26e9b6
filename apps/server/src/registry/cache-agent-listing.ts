import type { Agent } from '@baton/core'
import type { AgentsRepository, ListAgentsOptions } from '../db/agents-repository'

export type CachedAgentListing = {
  /** The repository, its `list` answered from memory while nothing changed. */
  agents: AgentsRepository
  /** Forgets every page: an agent changed here or in another process. */
  invalidate(): void
}

type Page = { agents: Agent[]; total: number }

// The repository's writes: each drops the cached pages (before and after it runs, so a page
// read while a write's transaction was open is not kept once it commits).
const writes = ['insert', 'update', 'revoke', 'grantTrustTier'] as const

/**
 * The agent directory served from memory: a page of `list` (by its filters) is kept until an
 * agent changes — a write through this repository, or `invalidate()`, which the registry calls
 * on every invalidation (scaled out, on every process's, through Redis) — or `ttlMs` passes,
 * the bound on staleness if an invalidation is lost. At most `maxPages` pages are kept.
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
  const ttlMs = options.ttlMs ?? 30_000
  const maxPages = options.maxPages ?? 256
  const now = options.now ?? Date.now
  const pages = new Map<string, { page: Promise<Page>; expiresAt: number }>()
  // Bumped by every invalidation, so a page read before it is not kept after it.
  let generation = 0
  const invalidate = () => {
    generation += 1
    pages.clear()
  }

  const cached: AgentsRepository = { ...agents }
  cached.list = (query: ListAgentsOptions) => {
    const key = JSON.stringify([
      query.limit,
      query.offset,
      query.capability ?? null,
      query.type ?? null,
      query.text ?? null,
    ])
    const hit = pages.get(key)
    if (hit && now() < hit.expiresAt) return hit.page
    const started = generation
    // Concurrent first readers of one page share one read.
    const page = agents.list(query)
    pages.set(key, { page, expiresAt: now() + ttlMs })
    if (pages.size > maxPages) pages.delete(pages.keys().next().value!)
    page.then(
      () => {
        if (started !== generation && pages.get(key)?.page === page) pages.delete(key)
      },
      () => {
        if (pages.get(key)?.page === page) pages.delete(key)
      },
    )
    return page
  }
  for (const name of writes) {
    const write = agents[name] as (...args: unknown[]) => Promise<unknown>
    ;(cached as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      invalidate()
      try {
        return await write(...args)
      } finally {
        invalidate()
      }
    }
  }
  return { agents: cached, invalidate }
}
