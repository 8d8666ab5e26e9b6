/** One unit of work for the run executor. */
export type RunJob = (
  | { kind: 'start'; runId: string }
  | { kind: 'resume'; runId: string }
  | { kind: 'answer'; runId: string; answer: unknown }
  | { kind: 'swarm'; runId: string }
) & {
  /** The trace context of whoever queued it (W3C `traceparent`), so the run continues its trace. */
  trace?: Record<string, string>
}

/** How a job is added. */
export type AddJobOptions = {
  /**
   * The job's key: while a job added with the same key is waiting or running (or, in BullMQ,
   * kept), adding another adds nothing. A run's first job is keyed by the run (`firstJobKey`),
   * so queueing a run that was never started again is safe whether or not its job was lost.
   */
  key?: string
}

/** The key of a run's first job (a BullMQ job id: neither an integer nor holding a colon). */
export const firstJobKey = (runId: string): string => `first-${runId}`

/** The lease of a job this process is running (a queue whose jobs are leased: BullMQ). */
export interface JobLease {
  /**
   * `listener` is told each time this process could not renew the lease (it was stalled past
   * it, or its lock was taken): another process may run the job now. Returns the unsubscribe.
   */
  onLost(listener: () => void): () => void
}

/**
 * The queue between the routes and the run executor. The in-process queue and the BullMQ one
 * (scale-out) implement it, so there is one executor for every mode.
 */
export interface RunQueue {
  add(job: RunJob, options?: AddJobOptions): Promise<void>
  /**
   * Sets the one handler every job goes to. A queue whose jobs are leased (BullMQ) gives it
   * the job's lease too.
   */
  process(handler: (job: RunJob, lease?: JobLease) => Promise<void>): void
  /**
   * Stops this process taking jobs (the first step of a shutdown): jobs running here go on,
   * jobs waiting stay queued (for the other processes, or for this one's next start), and
   * `add` still works (a run stopped by the shutdown is handed back through it).
   */
  pause(): Promise<void>
  /** Jobs waiting or running. */
  size(): number
  /** Jobs waiting, across every process of a deployment (default: `size()`). */
  depth?(): Promise<number>
  /** Stops taking jobs; resolves when those running have settled. */
  close(): Promise<void>
}
