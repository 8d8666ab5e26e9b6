import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/database'

/**
 * Leaves the claim of Idempotency-Key `key` as a request whose process died leaves it:
 * unanswered, holding `resourceId` (the id its request took), and two minutes old (past the
 * minute after which a retry takes it).
 *
 * @example
 * await leaveClaimOfDeadRequest(db, 'order-8', runId)
 */
export async function leaveClaimOfDeadRequest(
  db: Kysely<Database>,
  key: string,
  resourceId: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      response_status: null,
      response_body: JSON.stringify(null),
      resource_id: resourceId,
      created_at: sql`now() - interval '2 minutes'`,
    })
    .where('key', '=', key)
    .execute()
}
