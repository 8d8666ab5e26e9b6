export {
  checkConclaveRoom,
  checkConclaveWrite,
  checkIfVersion,
  DEFAULT_CONCLAVE_LIMITS,
} from './check-conclave-write'
export { ConclaveConflictError, ConclaveLimitError } from './conclave-errors'
export type {
  ConclaveEntry,
  ConclaveLimits,
  ConclaveSpace,
  ConclaveStore,
  ConclaveWriteOptions,
} from './conclave-types'
export { type ConclaveToolsOptions, createConclaveTools } from './create-conclave-tools'
export { createMemoryConclave } from './create-memory-conclave'
export { processConclave } from './process-conclave'
