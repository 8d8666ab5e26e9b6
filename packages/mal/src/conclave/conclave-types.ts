/** One entry of a conclave: the value, who wrote it, its version (per key, never reused). */
export type ConclaveEntry = {
  value: unknown
  writtenBy: string
  version: number
  updatedAt: string
}

export type ConclaveWriteOptions = {
  /** Who writes (an agent's wallet, or the coordinator's). */
  writtenBy: string
  /**
   * Compare-and-set: the write happens only if the key is at this version now (0: the key
   * must not exist); otherwise it is refused with `CONCLAVE_CONFLICT`.
   */
  ifVersion?: number
}

/**
 * Shared state of a swarm or a delegation tree: one keyspace (`space`) per root run, every
 * write versioned, compare-and-set atomic. In memory, in the database, or in Redis.
 */
export interface ConclaveStore {
  read(space: string, key: string): Promise<ConclaveEntry | null>
  write(
    space: string,
    key: string,
    value: unknown,
    options: ConclaveWriteOptions,
  ): Promise<ConclaveEntry>
  /** Whether the key existed; with `ifVersion`, refused with `CONCLAVE_CONFLICT` when it moved. */
  delete(space: string, key: string, options?: { ifVersion?: number }): Promise<boolean>
  /** The keys that hold a value, sorted. */
  list(space: string): Promise<string[]>
  /** Drops the keyspace after `afterMs` (0: now), as the run it belongs to ends. */
  expire(space: string, afterMs: number): Promise<void>
}

/** How big a conclave may grow (per keyspace) before writes are refused with `CONCLAVE_LIMIT`. */
export type ConclaveLimits = {
  /** Default 1000. */
  maxKeys?: number
  /** Bytes of a value's JSON (default 64 KiB). */
  maxValueBytes?: number
  /** Default 256. */
  maxKeyLength?: number
}

/** A keyspace of a conclave as a run hands it on: the store and the root run's keyspace. */
export type ConclaveSpace = { store: ConclaveStore; space: string }
