import type { SwarmsRepository } from '../db/swarms-repository'
import { keepAnswers } from './keep-answers'

export type CachedSwarms = {
  /** The repository, its `list`, `find` and `findOwned` answered from memory while nothing changed. */
  swarms: SwarmsRepository
  /** Forgets every swarm: one changed in another process. */
  invalidate(): void
}

const writes = ['insert', 'update', 'change', 'remove'] as const

/**
 * Swarm definitions served from memory until one changes: a write through this repository
 * drops them (before and after it runs, so a read overlapping the write is not kept) and is
 * announced through `onWrite` (scaled out, on the registry's invalidation channel, so every
 * other process calls `invalidate`). A copy is kept at most `ttlMs`, the bound on staleness
 * if an announcement is lost.
 *
 * @example
 * const cached = cacheSwarms(repositories.swarms, { onWrite: announce })
 * await cached.swarms.list() // a query the first time only
 */
export function cacheSwarms(
  swarms: SwarmsRepository,
  options: { onWrite?: () => void; ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): CachedSwarms {
  const kept = keepAnswers({
    ttlMs: options.ttlMs ?? 30_000,
    maxEntries: options.maxEntries ?? 1_000,
    ...(options.now ? { now: options.now } : {}),
  })
  const invalidate = () => kept.clear()
  const cachedRead = kept.read

  const cached: SwarmsRepository = { ...swarms }
  cached.list = () => cachedRead('list', () => swarms.list())
  cached.findOwned = (id) => cachedRead(`id:${id}`, () => swarms.findOwned(id))
  cached.find = async (id) => (await cached.findOwned(id))?.swarm
  for (const name of writes) {
    const write = (swarms[name] as (...args: unknown[]) => Promise<unknown>).bind(swarms)
    ;(cached as Record<string, unknown>)[name] = kept.clearing(write, options.onWrite)
  }
  return { swarms: cached, invalidate }
}
