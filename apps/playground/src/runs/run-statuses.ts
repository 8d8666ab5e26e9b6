/** Statuses a run never leaves: nothing more happens to it. */
const finalStatuses = new Set(['done', 'stopped', 'failed', 'cancelled'])

/**
 * Whether a run is over for good. An interrupted run is not: it resumes.
 *
 * @example
 * isFinalRunStatus('interrupted') // false
 */
export function isFinalRunStatus(status: string): boolean {
  return finalStatuses.has(status)
}

/**
 * Whether a run waits for a person before it moves again: paused for an answer, or
 * interrupted (the server stopped under it) until someone resumes it.
 *
 * @example
 * waitsForAPerson('paused') // true
 */
export function waitsForAPerson(status: string): boolean {
  return status === 'paused' || status === 'interrupted'
}
