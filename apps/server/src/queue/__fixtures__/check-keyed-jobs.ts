import { waitFor } from '@baton/testing/processes'
import { expect } from 'vitest'
import type { RunJob, RunQueue } from '../run-queue'

/**
 * What every `RunQueue` does with keys, checked on `queue` (concurrency 1, no handler yet): a
 * keyed job is not added again while one with its key waits or runs, a job with no key always
 * is, and a key is free again once its job has ended.
 */
export async function checkKeyedJobs(queue: RunQueue): Promise<void> {
  const ran: string[] = []
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  queue.process(async (job: RunJob) => {
    ran.push(`${job.kind} ${job.runId}`)
    await released
  })
  await queue.add({ kind: 'start', runId: 'a' }, { key: 'first-a' })
  await waitFor(async () => (ran.length === 1 ? true : undefined), { what: 'a to run' })
  await queue.add({ kind: 'start', runId: 'b' }, { key: 'first-b' })
  // a runs and b waits: their keys add nothing; a job with no key is added.
  await queue.add({ kind: 'start', runId: 'a' }, { key: 'first-a' })
  await queue.add({ kind: 'start', runId: 'b' }, { key: 'first-b' })
  await queue.add({ kind: 'resume', runId: 'a' })
  release()
  await waitFor(async () => (ran.length === 3 ? true : undefined), { what: 'b and a to run' })
  // Both keyed jobs have ended: the key adds a job again.
  await queue.add({ kind: 'start', runId: 'a' }, { key: 'first-a' })
  await waitFor(async () => (ran.length === 4 ? true : undefined), { what: 'a to run again' })
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(ran).toEqual(['start a', 'start b', 'resume a', 'start a'])
}
