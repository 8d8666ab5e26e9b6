export { createInProcessQueue } from './create-in-process-queue'
export { QueueUnavailableError } from './queue-unavailable-error'
export type { JobLease, RunJob, RunQueue } from './run-queue'
