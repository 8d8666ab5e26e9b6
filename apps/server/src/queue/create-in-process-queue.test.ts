import { describe, expect, it } from 'vitest'
import { checkKeyedJobs } from './__fixtures__/check-keyed-jobs'
import { createInProcessQueue } from './create-in-process-queue'
import type { RunJob } from './run-queue'

describe('createInProcessQueue', () => {
  it('starts no job once paused: the running ones settle, the waiting ones stay', async () => {
    const queue = createInProcessQueue({ concurrency: 2 })
    const started: string[] = []
    const releases: (() => void)[] = []
    queue.process(async (job: RunJob) => {
      started.push(job.runId)
      await new Promise<void>((resolve) => releases.push(resolve))
    })
    for (const runId of ['r1', 'r2', 'r3', 'r4']) await queue.add({ kind: 'start', runId })
    expect(started).toEqual(['r1', 'r2'])
    await queue.pause()
    await queue.add({ kind: 'start', runId: 'r5' })
    for (const release of releases.splice(0)) release()
    await new Promise((resolve) => setTimeout(resolve, 10))
    // Room was made, and nothing took it.
    expect(started).toEqual(['r1', 'r2'])
    expect(queue.size()).toBe(3)
    await queue.close()
    expect(queue.size()).toBe(0)
  })
  it('adds a keyed job once while one with its key waits or runs, and again once it has ended', async () => {
    const queue = createInProcessQueue({ concurrency: 1 })
    await checkKeyedJobs(queue)
    await queue.close()
  })
})
