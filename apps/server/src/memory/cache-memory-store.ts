import type { MemoryEntry, MemoryStore } from '@baton/core'

export type CachedMemoryStore = {
  /** The store, its `read` answered from memory while the scope has not changed. */
  memory: MemoryStore
  /** Forgets `scope` (or every scope): it changed in another process. */
  invalidate(scope?: string): void
}

type Kept = { entries: MemoryEntry[]; limit: number; complete: boolean; expiresAt: number }

/** An append in flight, in a scope's queue of them (`appendsInOrder`). */
type Pending = { entries: MemoryEntry[]; before: Kept | undefined; outcome?: 'stored' | 'failed' }

/**
 * An agent's memory read from this process's copy while nobody changed it: the read before
 * an agent's model call costs no statement. What this process appends is added to its copy
 * (one append of a scope at a time; two at once drop the copy, since their order in the
 * database is not known here, unless the store commits appends in the order they are asked
 * for: `appendsInOrder`, as the process's group commit does); every write is then announced
 * through `onWrite` (scaled out,
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
    /**
     * The store commits the appends of a scope in the order they are asked for (one writer
     * that takes them in turn: `db/group-commit.ts`), so appends that overlap are added to
     * the copy in that order instead of dropping it.
     */
    appendsInOrder?: boolean
  } = {},
): CachedMemoryStore {
  const ttlMs = options.ttlMs ?? 30_000
  const maxScopes = options.maxScopes ?? 10_000
  const now = options.now ?? Date.now
  const kept = new Map<string, Kept>()
  const writing = new Map<string, number>()
  // With appendsInOrder: each scope's appends in flight, oldest first.
  const inOrder = new Map<string, Pending[]>()
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

  const queue = (scope: string, pending: Pending): Pending => {
    const queued = inOrder.get(scope)
    if (queued) queued.push(pending)
    else inOrder.set(scope, [pending])
    return pending
  }
  // Adds to the copy what the appends that have ended store, oldest first; an append still
  // in flight holds back those after it, so the copy keeps the database's order.
  const applyInOrder = (scope: string) => {
    const queued = inOrder.get(scope) ?? []
    while (queued[0]?.outcome) {
      const { outcome, entries, before } = queued.shift()!
      const copy = kept.get(scope)
      if (!copy) continue
      // A failed append may still have committed; a copy that is not the one the append
      // started from (dropped and read again since) may hold it already.
      if (outcome === 'stored' && copy === before) addTo(copy, entries)
      else kept.delete(scope)
    }
    if (queued.length === 0) inOrder.delete(scope)
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
      // Queued before the store is called: the store takes its appends in this same order.
      const pending = options.appendsInOrder ? queue(scope, { entries, before }) : undefined
      let alone = false
      let stored = false
      try {
        await store.append(scope, entries)
        stored = true
      } finally {
        const last = endWrite(scope)
        if (pending) {
          pending.outcome = stored ? 'stored' : 'failed'
          applyInOrder(scope)
        } else {
          // A failed append may still have committed: the copy is not trusted after it.
          alone = stored && last && before !== undefined && kept.get(scope) === before
          // Another write of this scope overlapped this one: their order is the database's.
          if (!alone) kept.delete(scope)
        }
      }
      if (alone && before) addTo(before, entries)
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

/** Adds entries a write stored to the copy, keeping at most the copy's limit of them. */
function addTo(copy: Kept, entries: MemoryEntry[]): void {
  copy.entries.push(...entries)
  if (copy.entries.length > copy.limit) {
    copy.entries.splice(0, copy.entries.length - copy.limit)
    copy.complete = false
  }
}
