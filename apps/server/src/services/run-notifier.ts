import type { RunEvent } from '@baton/mal'

/** A live-only run event: a step's streamed text, never stored. */
export type RunDelta = Extract<RunEvent, { type: 'step-delta' }>

/**
 * Tells listeners that a run has new stored events (they read them from the database, so
 * live and late readers see the same stream), and hands them the run's live-only events (a
 * step's streamed text), which are never stored.
 *
 * @example
 * const off = notifier.listen(runId, () => sendStoredEventsAfter(lastSequence))
 * const offDeltas = notifier.listenDeltas(runId, (delta) => sendLive(delta))
 */
export function createRunNotifier() {
  const listeners = new Map<string, Set<() => void>>()
  const deltaListeners = new Map<string, Set<(delta: RunDelta) => void>>()
  const add = <T>(map: Map<string, Set<T>>, runId: string, listener: T): (() => void) => {
    let set = map.get(runId)
    if (!set) {
      set = new Set()
      map.set(runId, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && map.get(runId) === set) map.delete(runId)
    }
  }
  return {
    listen(runId: string, listener: () => void): () => void {
      return add(listeners, runId, listener)
    },
    notify(runId: string): void {
      for (const listener of listeners.get(runId) ?? []) listener()
    },
    /** Listens to the run's live-only events (`step-delta`). */
    listenDeltas(runId: string, listener: (delta: RunDelta) => void): () => void {
      return add(deltaListeners, runId, listener)
    },
    /** Hands a live-only event to the run's listeners (nobody listening: it is dropped). */
    delta(delta: RunDelta): void {
      for (const listener of deltaListeners.get(delta.runId) ?? []) {
        try {
          listener(delta)
        } catch {
          // A reader's failure (a closed socket) must not reach the run.
        }
      }
    },
  }
}

export type RunNotifier = ReturnType<typeof createRunNotifier>
