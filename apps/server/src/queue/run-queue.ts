/** One unit of work for the run executor. */
export type RunJob =
  | { kind: 'start'; runId: string }
  | { kind: 'resume'; runId: string }
  | { kind: 'answer'; runId: string; answer: unknown }
  | { kind: 'swarm'; runId: string }

/**
 * The queue between the routes and the run executor. The in-process queue implements it
 * today; a BullMQ queue (scale-out) will implement the same interface, so there is one
 * executor for every mode.
 */
export interface RunQueue {
  add(job: RunJob): Promise<void>
  /** Sets the one handler every job goes to. */
  process(handler: (job: RunJob) => Promise<void>): void
  /** Jobs waiting or running. */
  size(): number
  /** Stops taking jobs; resolves when those running have settled. */
  close(): Promise<void>
}
