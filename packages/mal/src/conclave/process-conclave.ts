import type { ConclaveStore } from './conclave-types'
import { createMemoryConclave } from './create-memory-conclave'

let shared: ConclaveStore | undefined

/**
 * The conclave runs use when they are given none: one per process, so a run resumed in the
 * same process finds its keyspace again.
 *
 * @example
 * await processConclave().list(runId)
 */
export function processConclave(): ConclaveStore {
  shared ??= createMemoryConclave()
  return shared
}
