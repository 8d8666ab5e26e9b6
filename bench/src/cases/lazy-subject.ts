import type { Figure, Size } from './types'

/** A module that measures one subject of a case, and imports only what that subject runs. */
export type SubjectModule = { subject: (size: Size) => Promise<Figure> }

/**
 * A subject whose module is imported only when it is measured, so its process holds its own
 * framework and no other subject's: a peer's modules in the heap are work for the collector
 * while Baton is timed (and Baton's while a peer is). In one process timing Baton's fan-out of
 * 1000 sub-agents, LangGraph.js and OpenAI Agents JS loaded beside it made it 27.7–35.5 ms
 * against 24.3–28.1 (five processes each, alternating).
 *
 * @example
 * export const fanoutSubjects: Subjects = { langgraph: lazySubject(() => import('./fanout-langgraph')) }
 */
export function lazySubject(load: () => Promise<SubjectModule>): (size: Size) => Promise<Figure> {
  return async (size) => (await load()).subject(size)
}
