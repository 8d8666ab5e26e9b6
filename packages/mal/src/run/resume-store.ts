/**
 * Where `resumeRun` records the states it has resumed, so each is resumed at most once. A
 * server backs it with its database (an insert that fails on a duplicate key); `claim` must
 * be atomic: it returns `true` for the first claim of an id and `false` for every later one.
 */
export type ResumeStore = {
  claim(stateId: string): boolean | Promise<boolean>
}

/**
 * A `ResumeStore` in memory, for one process.
 *
 * @example
 * const resumed = createMemoryResumeStore()
 * await resumeRun(state, 'yes', { registry, resumed })
 * await resumeRun(state, 'yes', { registry, resumed }) // rejects: RUN_STATE_INVALID (already resumed)
 */
export function createMemoryResumeStore(): ResumeStore {
  const claimed = new Set<string>()
  return {
    claim(stateId) {
      if (claimed.has(stateId)) return false
      claimed.add(stateId)
      return true
    },
  }
}
