import { Queue, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { type JobLease, QueueUnavailableError, type RunJob, type RunQueue } from '../queue'

export type BullmqQueueOptions = {
  /**
   * The connection jobs are added on: it should fail fast (no offline queue, a command
   * timeout), so an add never waits for Redis past `addTimeoutMs`.
   */
  connection: Redis
  /** The worker's connection (blocking reads): made with `maxRetriesPerRequest: null`. */
  workerConnection: Redis
  /** How long an add waits for Redis before it fails with `QUEUE_UNAVAILABLE`. */
  addTimeoutMs: number
  /** The queue's name; every process of one deployment uses the same one (default `baton-runs`). */
  name?: string
  /** Jobs this process runs at once. */
  concurrency: number
  /** How long a job's lock lasts without renewal; a process dead this long loses its jobs. */
  leaseMs: number
  /** `false` in an HTTP-only process: it adds jobs and never takes one. */
  work: boolean
  onError?: (error: unknown) => void
}

/**
 * The `RunQueue` of scale-out: jobs in BullMQ, taken by any process with free capacity.
 * A job's lock is its lease: a process that dies stops renewing it, BullMQ's stalled-job check
 * puts the job back, and another process runs it again (the executor continues the run from
 * its last committed step).
 *
 * @example
 * const queue = createBullmqQueue({ connection, concurrency: 8, leaseMs: 30_000, work: true })
 * queue.process((job) => executor.execute(job))
 * await queue.add({ kind: 'start', runId })
 */
export function createBullmqQueue(options: BullmqQueueOptions): RunQueue {
  const name = options.name ?? 'baton-runs'
  const queue = new Queue<RunJob>(name, { connection: options.connection })
  queue.on('error', (error) => options.onError?.(error))
  let worker: Worker<RunJob> | undefined
  let closed = false

  return {
    async add(job, { key } = {}) {
      if (closed) throw new Error('the run queue is closed')
      const added = queue.add(job.kind, job, {
        // The executor records every outcome on the run; it throws only when it could record
        // nothing (the database was down), and then the job is tried again later.
        attempts: 5,
        backoff: { type: 'exponential', delay: 2_000 },
        removeOnComplete: true,
        // A key is the job's id: BullMQ adds nothing for an id it holds. A keyed job that
        // failed is not kept, so the run it never started can be queued again.
        ...(key === undefined ? { removeOnFail: 1_000 } : { jobId: key, removeOnFail: true }),
      })
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), options.addTimeoutMs)
      })
      try {
        await Promise.race([added, timeout])
      } catch (error) {
        // An add that lands after all (Redis answered late) finds its run gone or not queued:
        // the executor skips it.
        added.catch(() => {})
        throw new QueueUnavailableError({
          runId: job.runId,
          waitedMs: options.addTimeoutMs,
          cause: error,
        })
      } finally {
        clearTimeout(timer)
      }
    },
    process(handler) {
      if (!options.work || worker) return
      // Who is told, per job running here, that its lock could not be renewed.
      const lost = new Map<string, () => void>()
      const leaseOf = (jobId: string): JobLease => ({
        onLost(listener) {
          lost.set(jobId, listener)
          return () => {
            if (lost.get(jobId) === listener) lost.delete(jobId)
          }
        },
      })
      worker = new Worker<RunJob>(name, async (job) => handler(job.data, leaseOf(job.id!)), {
        connection: options.workerConnection,
        concurrency: options.concurrency,
        lockDuration: options.leaseMs,
        stalledInterval: options.leaseMs,
        // A run whose processes keep dying is given up on after this many takeovers.
        maxStalledCount: 5,
      })
      worker.on('error', (error) => options.onError?.(error))
      // A lock this process could not renew is lost (it was stalled past it, or cut off from
      // Redis): the stalled-job check hands the job to another process (or back to this one).
      worker.on('lockRenewalFailed', (jobIds) => {
        for (const jobId of jobIds) lost.get(jobId)?.()
      })
    },
    async pause() {
      // This worker only (the queue goes on for the others), without waiting for its jobs: the
      // run service lets them stop and hands them back through `add`.
      await worker?.pause(true)
    },
    size: () => 0,
    // Waiting, delayed and prioritized jobs of the whole deployment, for the queue-depth gauge.
    depth: () => queue.count(),
    async close() {
      if (closed) return
      // Waits for the jobs running here (the run service has already let them stop); until
      // they have settled the queue still takes the hand-over of a run they stopped.
      await worker?.close()
      closed = true
      await queue.close()
    },
  }
}
