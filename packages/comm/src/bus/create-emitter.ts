/** A minimal typed event emitter that runs in browsers and Node alike. */
export type Emitter<Events extends Record<string, unknown>> = {
  on<Name extends keyof Events>(name: Name, listener: (payload: Events[Name]) => void): () => void
  emit<Name extends keyof Events>(name: Name, payload: Events[Name]): void
  clear(): void
}

/**
 * Creates an emitter; a listener that throws is isolated so the others still run.
 *
 * @example
 * const events = createEmitter<{ ping: number }>()
 * const off = events.on('ping', (value) => console.log(value))
 */
export function createEmitter<Events extends Record<string, unknown>>(
  onListenerError: (error: unknown) => void = () => {},
): Emitter<Events> {
  const listeners = new Map<keyof Events, Set<(payload: never) => void>>()
  return {
    on(name, listener) {
      let set = listeners.get(name)
      if (!set) {
        set = new Set()
        listeners.set(name, set)
      }
      set.add(listener as (payload: never) => void)
      return () => {
        set.delete(listener as (payload: never) => void)
      }
    },
    emit(name, payload) {
      const set = listeners.get(name)
      if (!set || set.size === 0) return
      // A snapshot, so a listener added while emitting waits for the next emit; one listener
      // (the common case) needs no array.
      const only = set.size === 1 ? set.values().next().value : undefined
      for (const listener of only ? [only] : [...set]) {
        try {
          ;(listener as (payload: unknown) => void)(payload)
        } catch (error) {
          onListenerError(error)
        }
      }
    },
    clear() {
      listeners.clear()
    },
  }
}
