import type { RunEvent } from '@baton/mal'

/** A live-only run event: a step's streamed text, never stored. */
export type RunDelta = Extract<RunEvent, { type: 'step-delta' }>

// What a reader who joins a run from its start is given of the text streamed before it came:
// at most this much per run, for at most this long after the run's last piece of text, and at
// most this much for all runs together (the runs a process executes are its to bound).
export const MAX_KEPT_CHARACTERS = 256 * 1024
export const KEPT_FOR_MS = 5 * 60_000
const MAX_KEPT_TOTAL_CHARACTERS = 8 * 1024 * 1024
type Kept = { at: number; characters: number; steps: Map<string, RunDelta> }

/** Which step (and iteration) of its run a delta's text belongs to. */
export function stepKeyOf(delta: RunDelta): string {
  return `${delta.path}#${delta.iteration ?? ''}`
}

export type DeltaListenOptions = {
  /** Hand over the text the run streamed before the listener came, then the live text. */
  fromStart?: boolean
}

export type RunNotifierOptions = {
  /** The clock `keptForMs` is measured on (milliseconds). */
  now?: () => number
  /** How long a run's streamed text is kept after its last piece (default 5 minutes). */
  keptForMs?: number
  /** Streamed text kept per run, in characters (default 256 Ki). */
  maxKeptCharacters?: number
  /** Streamed text kept for all runs together, in characters (default 8 Mi). */
  maxKeptTotalCharacters?: number
}

/**
 * Tells listeners that a run has new stored events (they read them from the database, so
 * live and late readers see the same stream), and hands them the run's live-only events (a
 * step's streamed text), which are never stored.
 *
 * @example
 * const off = notifier.listen(runId, () => sendStoredEventsAfter(lastSequence))
 * const offDeltas = notifier.listenDeltas(runId, (delta) => sendLive(delta))
 */
export function createRunNotifier(options: RunNotifierOptions = {}) {
  const now = options.now ?? Date.now
  const keptForMs = options.keptForMs ?? KEPT_FOR_MS
  const maxPerRun = options.maxKeptCharacters ?? MAX_KEPT_CHARACTERS
  const maxTotal = options.maxKeptTotalCharacters ?? MAX_KEPT_TOTAL_CHARACTERS
  const listeners = new Map<string, Set<() => void>>()
  const deltaListeners = new Map<string, Set<(delta: RunDelta) => void>>()
  // The text each step of a run streamed so far, one delta per step (memory only), the run
  // that streamed least recently first: what has expired, or must go to stay under the total,
  // is at the front, so a delta looks at no more runs than it drops.
  const kept = new Map<string, Kept>()
  let keptTotal = 0
  const drop = (runId: string) => {
    const entry = kept.get(runId)
    if (!entry) return
    kept.delete(runId)
    keptTotal -= entry.characters
  }
  const keep = (delta: RunDelta) => {
    const at = now()
    for (const [runId, entry] of kept) {
      if (at - entry.at <= keptForMs) break
      drop(runId)
    }
    let entry = kept.get(delta.runId)
    if (entry) kept.delete(delta.runId)
    else entry = { at, characters: 0, steps: new Map() }
    // To the back: it streamed last.
    kept.set(delta.runId, entry)
    entry.at = at
    if (entry.characters + delta.text.length > maxPerRun) return
    entry.characters += delta.text.length
    keptTotal += delta.text.length
    const key = stepKeyOf(delta)
    const step = entry.steps.get(key)
    entry.steps.set(key, step ? { ...step, text: step.text + delta.text } : { ...delta })
    for (const runId of kept.keys()) {
      if (keptTotal <= maxTotal || runId === delta.runId) break
      drop(runId)
    }
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
  const textSoFar = (runId: string): RunDelta[] =>
    [...(kept.get(runId)?.steps.values() ?? [])].sort((a, b) => a.sequence - b.sequence)
  return {
    listen(runId: string, listener: () => void): () => void {
      return add(listeners, runId, listener)
    },
    notify(runId: string): void {
      for (const listener of listeners.get(runId) ?? []) listener()
    },
    /**
     * Listens to the run's live-only events (`step-delta`). `fromStart`: the text streamed
     * before, one delta per step, is handed over first, in this same turn (nothing falls
     * between it and the live text).
     */
    listenDeltas(
      runId: string,
      listener: (delta: RunDelta) => void,
      options: DeltaListenOptions = {},
    ): () => void {
      if (options.fromStart) for (const delta of textSoFar(runId)) listener(delta)
      return add(deltaListeners, runId, listener)
    },
    /**
     * The text the run's steps streamed so far, one delta per step (with the `sequence` of its
     * first piece), for a reader who joins from the start; kept in memory a few minutes.
     */
    textSoFar,
    /** Drops what `textSoFar` keeps of a run (it ended here). */
    forget(runId: string): void {
      drop(runId)
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
