export { createInProcessQueue } from './create-in-process-queue'
export type { RunJob, RunQueue } from './run-queue'
