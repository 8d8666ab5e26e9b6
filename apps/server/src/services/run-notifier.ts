/**
 * Tells listeners that a run has new stored events (they read them from the database, so
 * live and late readers see the same stream).
 *
 * @example
 * const off = notifier.listen(runId, () => sendStoredEventsAfter(lastSequence))
 */
export function createRunNotifier() {
  const listeners = new Map<string, Set<() => void>>()
  return {
    listen(runId: string, listener: () => void): () => void {
      let set = listeners.get(runId)
      if (!set) {
        set = new Set()
        listeners.set(runId, set)
      }
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId)
      }
    },
    notify(runId: string): void {
      for (const listener of listeners.get(runId) ?? []) listener()
    },
  }
}

export type RunNotifier = ReturnType<typeof createRunNotifier>
