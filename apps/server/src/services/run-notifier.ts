import type { RunEvent } from '@baton/mal'

/** A live-only run event: a step's streamed text, never stored. */
export type RunDelta = Extract<RunEvent, { type: 'step-delta' }>

// What a reader who joins a run from its start is given of the text streamed before it came:
// at most this much per run, for at most this long after the run's last piece of text.
const MAX_KEPT_CHARACTERS = 256 * 1024
const KEPT_FOR_MS = 5 * 60_000
type Kept = { at: number; characters: number; steps: Map<string, RunDelta> }

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
  // The text each step of a run streamed so far, one delta per step (memory only).
  const kept = new Map<string, Kept>()
  const keep = (delta: RunDelta) => {
    const now = Date.now()
    for (const [runId, entry] of kept) if (now - entry.at > KEPT_FOR_MS) kept.delete(runId)
    let entry = kept.get(delta.runId)
    if (!entry) {
      entry = { at: now, characters: 0, steps: new Map() }
      kept.set(delta.runId, entry)
    }
    entry.at = now
    if (entry.characters + delta.text.length > MAX_KEPT_CHARACTERS) return
    entry.characters += delta.text.length
    const key = `${delta.path}#${delta.iteration ?? ''}`
    const step = entry.steps.get(key)
    entry.steps.set(key, step ? { ...step, text: step.text + delta.text } : { ...delta })
  }
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
    /**
     * The text the run's steps streamed so far, one delta per step (with the `sequence` of its
     * first piece), for a reader who joins from the start; kept in memory a few minutes.
     */
    textSoFar(runId: string): RunDelta[] {
      return [...(kept.get(runId)?.steps.values() ?? [])].sort((a, b) => a.sequence - b.sequence)
    },
    /** Drops what `textSoFar` keeps of a run (it ended here). */
    forget(runId: string): void {
      kept.delete(runId)
    },
    /** Hands a live-only event to the run's listeners, and keeps its text for `textSoFar`. */
    delta(delta: RunDelta): void {
      keep(delta)
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
