import type { AddJobOptions, RunJob, RunQueue } from './run-queue'

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
  const waiting: { job: RunJob; key: string | undefined }[] = []
  // The keys of the jobs waiting or running: a keyed job is not added twice meanwhile.
  const keys = new Set<string>()
  const running = new Set<Promise<void>>()
  let handler: ((job: RunJob) => Promise<void>) | undefined
  let closed = false
  let paused = false

  const pump = () => {
    while (handler && !closed && !paused && running.size < concurrency && waiting.length > 0) {
      const { job, key } = waiting.shift()!
      const work: Promise<void> = handler(job)
        .catch(() => {
          // The executor records its own failures on the run; nothing is lost here.
        })
        .finally(() => {
          if (key !== undefined) keys.delete(key)
          running.delete(work)
          pump()
        })
      running.add(work)
    }
  }

  return {
    async add(job, { key }: AddJobOptions = {}) {
      if (closed) throw new Error('the run queue is closed')
      if (key !== undefined) {
        if (keys.has(key)) return
        keys.add(key)
      }
      waiting.push({ job, key })
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
      keys.clear()
      await Promise.allSettled([...running])
    },
  }
}
