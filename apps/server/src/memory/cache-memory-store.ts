import type { MemoryEntry, MemoryStore } from '@baton/core'

export type CachedMemoryStore = {
  /** The store, its `read` answered from memory while the scope has not changed. */
  memory: MemoryStore
  /** Forgets `scope` (or every scope): it changed in another process. */
  invalidate(scope?: string): void
}

type Kept = { entries: MemoryEntry[]; limit: number; complete: boolean; expiresAt: number }

/**
 * An agent's memory read from this process's copy while nobody changed it: the read before
 * an agent's model call costs no statement. What this process appends is added to its copy
 * (one append of a scope at a time; two at once drop the copy, since their order in the
 * database is not known here); every write is then announced through `onWrite` (scaled out,
 * on the registry's invalidation channel), and every other process drops its copy when the
 * announcement arrives (`invalidate`). A copy is kept at most `ttlMs`, the bound on staleness
 * if an announcement is lost (Redis down).
 *
 * @example
 * const cached = cacheMemoryStore(createDatabaseMemoryStore(db), { onWrite: announce })
 * await cached.memory.read('analyst', { limit: 20 }) // a query the first time only
 */
export function cacheMemoryStore(
  store: MemoryStore,
  options: {
    onWrite?: (scope: string) => Promise<void> | void
    ttlMs?: number
    maxScopes?: number
    now?: () => number
  } = {},
): CachedMemoryStore {
  const ttlMs = options.ttlMs ?? 30_000
  const maxScopes = options.maxScopes ?? 10_000
  const now = options.now ?? Date.now
  const kept = new Map<string, Kept>()
  const writing = new Map<string, number>()
  // Bumped by every change, so a read that started before it does not keep what it read.
  let generation = 0
  const invalidate = (scope?: string) => {
    generation += 1
    if (scope === undefined) kept.clear()
    else kept.delete(scope)
  }
  const announce = async (scope: string) => {
    await options.onWrite?.(scope)
  }
  // Writes of a scope in flight: a read that sees one does not keep what it read.
  const startWrite = (scope: string) => writing.set(scope, (writing.get(scope) ?? 0) + 1)
  /** Ends a write of `scope`; true when no other write of it is still in flight. */
  const endWrite = (scope: string): boolean => {
    const left = (writing.get(scope) ?? 1) - 1
    if (left === 0) writing.delete(scope)
    else writing.set(scope, left)
    return left === 0
  }

  const memory: MemoryStore = {
    async read(scope, readOptions = {}) {
      const limit = readOptions.limit ?? 1000
      const hit = kept.get(scope)
      if (hit && now() < hit.expiresAt && (hit.complete || hit.limit >= limit)) {
        return hit.entries.slice(-limit)
      }
      const started = generation
      const entries = await store.read(scope, { limit })
      if (started === generation && !writing.has(scope) && ttlMs > 0) {
        kept.delete(scope)
        kept.set(scope, {
          entries: [...entries],
          limit,
          complete: entries.length < limit,
          expiresAt: now() + ttlMs,
        })
        if (kept.size > maxScopes) kept.delete(kept.keys().next().value!)
      }
      return entries
    },
    async append(scope, entries) {
      if (entries.length === 0) return
      generation += 1
      const before = kept.get(scope)
      startWrite(scope)
      let alone = false
      let stored = false
      try {
        await store.append(scope, entries)
        stored = true
      } finally {
        const last = endWrite(scope)
        // A failed append may still have committed: the copy is not trusted after it.
        alone = stored && last && before !== undefined && kept.get(scope) === before
        // Another write of this scope overlapped this one: their order is the database's.
        if (!alone) kept.delete(scope)
      }
      if (alone && before) {
        before.entries.push(...entries)
        if (before.entries.length > before.limit) {
          before.entries.splice(0, before.entries.length - before.limit)
          before.complete = false
        }
      }
      await announce(scope)
    },
    async clear(scope) {
      invalidate(scope)
      startWrite(scope)
      try {
        await store.clear(scope)
      } finally {
        endWrite(scope)
        invalidate(scope)
      }
      await announce(scope)
    },
  }
  return { memory, invalidate }
}
