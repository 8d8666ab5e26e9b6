import type { Agent } from '@baton/core'
import type { AgentsRepository, ListAgentsOptions } from '../db/agents-repository'

export type CachedAgentListing = {
  /** The repository, its `list`, `findById` and `registrationOf` answered from memory while nothing changed. */
  agents: AgentsRepository
  /** Forgets every page: an agent changed here or in another process. */
  invalidate(): void
}

type Page = { agents: Agent[]; total: number }

// The repository's writes: each drops the cached pages (before and after it runs, so a page
// read while a write's transaction was open is not kept once it commits).
const writes = ['insert', 'update', 'revoke', 'grantTrustTier'] as const

/**
 * The agent directory served from memory: a page of `list` (by its filters), an agent by id
 * and a wallet's registration are kept until an
 * agent changes — a write through this repository, or `invalidate()`, which the registry calls
 * on every invalidation (scaled out, on every process's, through Redis) — or `ttlMs` passes,
 * the bound on staleness if an invalidation is lost. At most `maxPages` answers of each kind are kept.
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
  const invalidations: (() => void)[] = [() => pages.clear()]
  const invalidate = () => {
    generation += 1
    for (const drop of invalidations) drop()
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
  // A hosted agent's card (by id) and its registration are read on every A2A message and run:
  // kept the same way, by their argument.
  for (const name of ['findById', 'registrationOf'] as const) {
    const read = agents[name] as (key: string) => Promise<unknown>
    const answers = new Map<string, { answer: Promise<unknown>; expiresAt: number }>()
    invalidations.push(() => answers.clear())
    ;(cached as Record<string, unknown>)[name] = (key: string) => {
      const hit = answers.get(key)
      if (hit && now() < hit.expiresAt) return hit.answer
      const started = generation
      const answer = read(key)
      answers.set(key, { answer, expiresAt: now() + ttlMs })
      if (answers.size > maxPages) answers.delete(answers.keys().next().value!)
      const forget = () => {
        if (answers.get(key)?.answer === answer) answers.delete(key)
      }
      answer.then(() => {
        if (started !== generation) forget()
      }, forget)
      return answer
    }
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
