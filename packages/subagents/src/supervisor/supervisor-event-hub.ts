import type { SupervisorEventName, SupervisorEvents } from './types'

type Listener = (payload: never) => void

/** The listeners of one sub-agent tree: every supervisor in it emits here, once per event. */
export interface SupervisorEventHub {
  on<E extends SupervisorEventName>(
    event: E,
    listener: (payload: SupervisorEvents[E]) => void,
  ): () => void
  emit<E extends SupervisorEventName>(event: E, payload: SupervisorEvents[E]): void
}

/**
 * One hub per tree, shared by all its supervisors, so an event costs the same at depth 1000 as
 * at depth 1 (it is not passed up through every ancestor).
 *
 * @example
 * const events = createSupervisorEventHub()
 * events.on('agent-finish', (event) => console.log(event.id, event.status))
 */
export function createSupervisorEventHub(): SupervisorEventHub {
  const listeners = new Map<SupervisorEventName, Set<Listener>>()
  return {
    on(event, listener) {
      const set = listeners.get(event) ?? new Set()
      set.add(listener as Listener)
      listeners.set(event, set)
      return () => set.delete(listener as Listener)
    },
    emit(event, payload) {
      const set = listeners.get(event)
      if (!set) return
      for (const listener of set) {
        try {
          ;(listener as (payload: SupervisorEvents[typeof event]) => void)(payload)
        } catch (error) {
          // A UI listener that throws must not change what happens to a sub-agent; it is
          // reported as a process warning instead.
          process.emitWarning(error instanceof Error ? error : String(error), {
            code: 'BATON_SUPERVISOR_LISTENER',
          })
        }
      }
    },
  }
}
