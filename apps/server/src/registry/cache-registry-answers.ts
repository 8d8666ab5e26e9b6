import { createHash } from 'node:crypto'
import { OldestFirst, parseWallet } from '@baton/core'
import type { BatonServices } from '../services'

/** `GET /agent/:wallet`'s answer for one wallet: its JSON and that JSON's entity tag. */
export type RegistryAnswer = { body: string; etag: string }

export type CachedRegistryAnswers = {
  /** The answer kept for `wallet` as the request spelled it, if any and still fresh: no waiting. */
  kept(wallet: string): RegistryAnswer | undefined
  /** The answer for `wallet` as the request spelled it (400 for a malformed one, 404 for an unknown one: thrown). */
  answer(wallet: string): Promise<RegistryAnswer>
  /** Forgets every answer: an agent changed (the registry's invalidations call it). */
  invalidate(): void
}

/**
 * The registry route's answers kept serialised, by the wallet as it was written in the URL:
 * a hot wallet costs no checksum, no serialisation and no hash per request. Dropped on every
 * registry invalidation (here and, scaled out, every process's) and after `ttlMs`, the
 * registry's own bound on staleness; an unknown wallet is never kept (it may be registered
 * the next moment).
 *
 * @example
 * const answers = cacheRegistryAnswers(registry)
 * const { body, etag } = await answers.answer('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')
 */
export function cacheRegistryAnswers(
  registry: BatonServices['registry'],
  options: { ttlMs?: number; maxAnswers?: number; now?: () => number } = {},
): CachedRegistryAnswers {
  const ttlMs = options.ttlMs ?? 30_000
  const maxAnswers = options.maxAnswers ?? 10_000
  const now = options.now ?? Date.now
  const answers = new Map<string, RegistryAnswer & { expiresAt: number }>()
  const oldest = new OldestFirst(answers)
  // Bumped by every invalidation, so an answer read before it is not kept after it.
  let generation = 0
  const kept = (wallet: string) => {
    const hit = answers.get(wallet)
    return hit && now() < hit.expiresAt ? hit : undefined
  }
  return {
    kept,
    async answer(wallet) {
      const hit = kept(wallet)
      if (hit) return hit
      const started = generation
      const agent = await registry.ensureRegisteredAgent(parseWallet(wallet))
      const body = JSON.stringify(agent)
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      const answer = { body, etag, expiresAt: now() + ttlMs }
      if (started === generation && ttlMs > 0) {
        answers.set(wallet, answer)
        oldest.trimTo(maxAnswers)
      }
      return answer
    },
    invalidate() {
      generation += 1
      answers.clear()
    },
  }
}
