import type { RunJob, RunQueue } from './run-queue'

/**
 * A `RunQueue` in this process, running at most `concurrency` jobs at once.
 *
 * @example
 * const queue = createInProcessQueue({ concurrency: 4 })
 * queue.process(async (job) => executor.execute(job))
 * await queue.add({ kind: 'start', runId })
 */
export function createInProcessQueue(options: { concurrency?: number } = {}): RunQueue {
  const concurrency = options.concurrency ?? 4
  const waiting: RunJob[] = []
  const running = new Set<Promise<void>>()
  let handler: ((job: RunJob) => Promise<void>) | undefined
  let closed = false
  let paused = false

  const pump = () => {
    while (handler && !closed && !paused && running.size < concurrency && waiting.length > 0) {
      const job = waiting.shift()!
      const work: Promise<void> = handler(job)
        .catch(() => {
          // The executor records its own failures on the run; nothing is lost here.
        })
        .finally(() => {
          running.delete(work)
          pump()
        })
      running.add(work)
    }
  }

  return {
    async add(job) {
      if (closed) throw new Error('the run queue is closed')
      waiting.push(job)
      pump()
    },
    process(next) {
      handler = next
      pump()
    },
    async pause() {
      // The jobs left waiting are runs still `queued` in the database: the next start takes them.
      paused = true
    },
    size: () => waiting.length + running.size,
    async close() {
      closed = true
      waiting.length = 0
      await Promise.allSettled([...running])
    },
  }
}
