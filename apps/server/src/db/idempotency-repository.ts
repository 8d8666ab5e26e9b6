import { type Kysely, sql } from 'kysely'
import type { Database } from './database'

/** What the first request with a key left for a retry of it. */
export type IdempotencyClaim =
  /**
   * The key is new, or its first request died unanswered (`abandoned`): this request goes
   * ahead and creates under `resourceId`, the id the first request with the key took, which
   * when `abandoned` the request that died may have created already.
   */
  | { kind: 'new'; resourceId: string; abandoned: boolean }
  /** Answered already: the retry gets the same answer. */
  | { kind: 'replay'; status: number; body: Record<string, unknown> }
  /** The key was used with another body. */
  | { kind: 'mismatch' }
  /** The first request with the key is still being answered. */
  | { kind: 'in-progress' }

export type IdempotencyKey = { scope: string; key: string }

/**
 * `Idempotency-Key`s, per route (`scope`): the first request with a key claims it, stores its
 * answer once it has one, and releases the key when it failed (nothing was done, so a retry
 * tries again).
 *
 * @example
 * const claim = await idempotency.claim({ scope: 'POST /api/v1/runs', key, requestHash, resourceId, abandonedAfterMs })
 * if (claim.kind === 'new') await idempotency.complete({ scope, key, status: 202, body })
 */
export function createIdempotencyRepository(db: Kysely<Database>) {
  return {
    /**
     * Claims `key` in `scope` for a request whose body hashes to `requestHash` and that will
     * create `resourceId`. A claim older than `abandonedAfterMs` with no answer was left by a
     * process that died: it is taken, with the id its request was creating under.
     */
    async claim(
      input: IdempotencyKey & {
        requestHash: string
        resourceId: string
        abandonedAfterMs: number
      },
    ): Promise<IdempotencyClaim> {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          scope: input.scope,
          key: input.key,
          request_hash: input.requestHash,
          response_status: null,
          response_body: JSON.stringify(null),
          resource_id: input.resourceId,
        })
        .onConflict((conflict) => conflict.columns(['scope', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst()
      if (inserted) return { kind: 'new', resourceId: input.resourceId, abandoned: false }
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', input.scope)
        .where('key', '=', input.key)
        .executeTakeFirst()
      // Released between the two statements: claim it again.
      if (!row) return this.claim(input)
      if (row.request_hash !== input.requestHash) return { kind: 'mismatch' }
      if (row.response_status !== null) {
        return { kind: 'replay', status: row.response_status, body: row.response_body ?? {} }
      }
      // Taken by one retry only: a second one's update waits for the first's row lock and then
      // finds the claim young. (Not compared to the `created_at` read above: PostgreSQL keeps
      // microseconds, a JavaScript date milliseconds, so that never matched a claim stamped by
      // the database, and a dead request's key stayed in use until it was forgotten.)
      const taken = await db
        .updateTable('idempotency_keys')
        .set({
          created_at: new Date(),
          // Keys claimed before ids were kept have none: this request's is theirs now.
          resource_id: sql<string>`coalesce(resource_id, ${input.resourceId})`,
        })
        .where('scope', '=', input.scope)
        .where('key', '=', input.key)
        .where('request_hash', '=', input.requestHash)
        .where('response_status', 'is', null)
        .where('created_at', '<', new Date(Date.now() - input.abandonedAfterMs))
        .returning('resource_id')
        .executeTakeFirst()
      if (!taken) return { kind: 'in-progress' }
      return { kind: 'new', resourceId: taken.resource_id ?? input.resourceId, abandoned: true }
    },

    /** Stores the answer of the request that claimed the key. */
    async complete(
      input: IdempotencyKey & { status: number; body: Record<string, unknown> },
    ): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ response_status: input.status, response_body: JSON.stringify(input.body) })
        .where('scope', '=', input.scope)
        .where('key', '=', input.key)
        .execute()
    },

    /** Frees a key whose request failed (it did nothing), so a retry goes ahead. */
    async release(input: IdempotencyKey): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('scope', '=', input.scope)
        .where('key', '=', input.key)
        .where('response_status', 'is', null)
        .execute()
    },

    /**
     * Leaves the unanswered claim of `key` abandoned, as a dead request's is (its id kept): the
     * next retry takes it at once. For a retry that took a dead request's claim and could not
     * finish what that request had made.
     */
    async abandon(input: IdempotencyKey & { abandonedAfterMs: number }): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ created_at: new Date(Date.now() - input.abandonedAfterMs - 1_000) })
        .where('scope', '=', input.scope)
        .where('key', '=', input.key)
        .where('response_status', 'is', null)
        .execute()
    },

    /**
     * Leaves every unanswered claim not yet abandoned as a dead request's is, and says how
     * many: for a process that knows no other one answers (a server alone, at its start), so a
     * retry takes them at once rather than a minute after they were made.
     */
    async abandonUnanswered(input: { abandonedAfterMs: number }): Promise<number> {
      const abandonedAt = new Date(Date.now() - input.abandonedAfterMs - 1_000)
      const result = await db
        .updateTable('idempotency_keys')
        .set({ created_at: abandonedAt })
        .where('response_status', 'is', null)
        .where('created_at', '>', abandonedAt)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },

    /** Forgets keys older than `olderThanMs` (a retry that late makes a new request). */
    async forget(olderThanMs: number): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', new Date(Date.now() - olderThanMs))
        .execute()
    },
  }
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>
