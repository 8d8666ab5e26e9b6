export { createInProcessQueue } from './create-in-process-queue'
export { QueueUnavailableError } from './queue-unavailable-error'
export type { AddJobOptions, JobLease, RunJob, RunQueue } from './run-queue'
export { firstJobKey } from './run-queue'
