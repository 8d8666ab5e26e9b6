import { type MemoryEntry, type MemoryStore, OldestFirst } from '@baton/core'
import type { DatabaseMemoryStore, StoredMemoryEntry } from '../db/memory-repository'

export type CachedMemoryStore = {
  /** The store, its `read` answered from memory while the scope has not changed. */
  memory: MemoryStore
  /** Forgets `scope` (or every scope): it changed in another process. */
  invalidate(scope?: string): void
  /** Adds to the copy of `scope` what another process appended to it (with the entries' ids). */
  appended(scope: string, entries: StoredMemoryEntry[]): void
}

/** A scope's copy: its newest `limit` entries, oldest first (`complete`: all the scope has). */
type Kept = { entries: StoredMemoryEntry[]; limit: number; complete: boolean; expiresAt: number }

/**
 * An agent's memory read from this process's copy while nobody changed it: the read before
 * an agent's model call costs no statement. Every entry carries the id the database gave it,
 * and a copy is the scope's newest entries in id order, so what was appended — here, or in
 * another process and announced (`appended`) — is put into the copy where the database has
 * it, whatever order the appends end in: the copy stays what a read would answer. Appends are
 * announced through `onWrite` with their entries (scaled out, on the registry's invalidation
 * channel); a clear, a failed append (it may have committed) and `invalidate` drop the copy,
 * which is read again. A copy is kept at most `ttlMs`, the bound on staleness if an
 * announcement is lost (Redis down).
 *
 * @example
 * const cached = cacheMemoryStore(createDatabaseMemoryStore(db), { onWrite: announce })
 * await cached.memory.read('analyst', { limit: 20 }) // a query the first time only
 */
export function cacheMemoryStore(
  store: DatabaseMemoryStore,
  options: {
    /** A write of `scope`: its appended entries, or undefined when the scope was cleared. */
    onWrite?: (scope: string, appended?: StoredMemoryEntry[]) => Promise<void> | void
    ttlMs?: number
    maxScopes?: number
    now?: () => number
  } = {},
): CachedMemoryStore {
  const ttlMs = options.ttlMs ?? 30_000
  const maxScopes = options.maxScopes ?? 10_000
  const now = options.now ?? Date.now
  const kept = new Map<string, Kept>()
  const oldestKept = new OldestFirst(kept)
  // Entries appended to a scope while a read of it is on its way (that read may be too early
  // to see them): added to what the read brings before it is kept.
  const reading = new Map<string, { reads: number; appended: StoredMemoryEntry[] }>()
  // Bumped by every change that drops copies, so a read that started before it is not kept.
  let generation = 0
  const invalidate = (scope?: string) => {
    generation += 1
    if (scope === undefined) kept.clear()
    else kept.delete(scope)
  }
  const appended = (scope: string, entries: StoredMemoryEntry[]) => {
    const copy = kept.get(scope)
    if (copy) addTo(copy, entries)
    reading.get(scope)?.appended.push(...entries)
  }

  const memory: MemoryStore = {
    async read(scope, readOptions = {}) {
      const limit = readOptions.limit ?? 1000
      const hit = kept.get(scope)
      if (hit && now() < hit.expiresAt && (hit.complete || hit.limit >= limit)) {
        return entriesOf(hit.entries.slice(-limit))
      }
      const started = generation
      let inFlight = reading.get(scope)
      if (!inFlight) {
        inFlight = { reads: 0, appended: [] }
        reading.set(scope, inFlight)
      }
      inFlight.reads += 1
      let read: StoredMemoryEntry[]
      try {
        read = await store.readStored(scope, { limit })
      } finally {
        inFlight.reads -= 1
        if (inFlight.reads === 0 && reading.get(scope) === inFlight) reading.delete(scope)
      }
      if (started !== generation || ttlMs <= 0) return entriesOf(read)
      const copy: Kept = {
        entries: [...read],
        limit,
        complete: read.length < limit,
        expiresAt: now() + ttlMs,
      }
      addTo(copy, inFlight.appended)
      kept.delete(scope)
      kept.set(scope, copy)
      oldestKept.trimTo(maxScopes)
      return entriesOf(copy.entries.slice(-limit))
    },
    async append(scope, entries) {
      if (entries.length === 0) return
      let stored: StoredMemoryEntry[]
      try {
        stored = await store.appendStored(scope, entries)
      } catch (error) {
        // It may have committed all the same: the copy is not trusted after it.
        invalidate(scope)
        throw error
      }
      appended(scope, stored)
      await options.onWrite?.(scope, stored)
    },
    async clear(scope) {
      invalidate(scope)
      try {
        await store.clear(scope)
      } finally {
        invalidate(scope)
      }
      await options.onWrite?.(scope)
    },
  }
  return { memory, invalidate, appended }
}

/**
 * Puts entries into a copy in id order (an id it holds already is skipped), keeping its newest
 * `limit`: an entry older than every one a full copy holds is not among the scope's newest.
 */
function addTo(copy: Kept, entries: StoredMemoryEntry[]): void {
  const held = copy.entries
  for (const stored of entries) {
    const oldest = held[0]?.id
    if (!copy.complete && held.length >= copy.limit && oldest !== undefined && stored.id < oldest)
      continue
    let at = held.length
    while (at > 0 && held[at - 1]!.id > stored.id) at -= 1
    if (at > 0 && held[at - 1]!.id === stored.id) continue
    held.splice(at, 0, stored)
  }
  if (held.length > copy.limit) {
    held.splice(0, held.length - copy.limit)
    copy.complete = false
  }
}

function entriesOf(stored: StoredMemoryEntry[]): MemoryEntry[] {
  return stored.map((each) => each.entry)
}
