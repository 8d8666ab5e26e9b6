import { OldestFirst } from '@baton/core'

/** Answers kept by key until cleared or expired (see `keepAnswers`). */
export type KeptAnswers = {
  /** The kept answer of `key`, or `read()`'s, kept unless a `clear()` came while it ran. */
  read<T>(key: string, read: () => Promise<T>): Promise<T>
  /** Forgets every answer, and any read running now is not kept. */
  clear(): void
  /**
   * `write` wrapped to clear the answers before and after it runs (so an answer read while its
   * transaction was open is not kept once it commits), then call `after`.
   */
  clearing<Args extends unknown[], Result>(
    write: (...args: Args) => Promise<Result>,
    after?: () => void,
  ): (...args: Args) => Promise<Result>
}

/**
 * A read-through cache of promised answers by key: concurrent first readers of a key share one
 * read, a failed read is not kept, an answer is kept at most `ttlMs` (the bound on staleness if
 * an invalidation is lost) and at most `maxEntries` of them (the oldest dropped first).
 *
 * @example
 * const kept = keepAnswers({ ttlMs: 30_000, maxEntries: 1_000 })
 * await kept.read('list', () => swarms.list()) // a query the first time only
 * kept.clear() // a swarm changed
 */
export function keepAnswers(options: {
  ttlMs: number
  maxEntries: number
  now?: () => number
}): KeptAnswers {
  const now = options.now ?? Date.now
  const answers = new Map<string, { answer: Promise<unknown>; expiresAt: number }>()
  const oldest = new OldestFirst(answers)
  // Bumped by every clear, so an answer read before it is not kept after it.
  let generation = 0
  const clear = () => {
    generation += 1
    answers.clear()
  }
  return {
    read<T>(key: string, read: () => Promise<T>): Promise<T> {
      const hit = answers.get(key)
      if (hit && now() < hit.expiresAt) return hit.answer as Promise<T>
      const started = generation
      const answer = read()
      answers.set(key, { answer, expiresAt: now() + options.ttlMs })
      oldest.trimTo(options.maxEntries)
      const forget = () => {
        if (answers.get(key)?.answer === answer) answers.delete(key)
      }
      answer.then(() => {
        if (started !== generation) forget()
      }, forget)
      return answer
    },
    clear,
    clearing:
      (write, after) =>
      async (...args) => {
        clear()
        try {
          return await write(...args)
        } finally {
          clear()
          after?.()
        }
      },
  }
}
