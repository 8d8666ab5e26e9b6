import type { Kysely } from 'kysely'
import { A2A_TASK_TABLE } from './a2a-task-store'

/** Where a conversation stands: the bus correlation it belongs to and its last hop. */
export type Conversation = { correlationId: string; hop: number }

/** What an A2A task remembers of the Baton conversation it ran in (in its `metadata.baton`). */
export type TaskConversationMetadata = { baton: Conversation }

type TaskRows = Record<
  string,
  { context_id: string; metadata: string | null; status_last_updated: number | string }
>

/**
 * The conversation an A2A `contextId` continues, from the tasks served in that context by
 * any hosted agent (so two agents passing one context back and forth share its count) and
 * the bus's hop count for it; undefined when Baton has never seen the context.
 *
 * @example
 * const known = await findConversation({ db, contextId, hops: (id) => bus.hops(id) })
 * const hop = known ? known.hop + 1 : 0
 */
export async function findConversation(options: {
  db: Kysely<unknown>
  contextId: string
  hops: (correlationId: string) => number
}): Promise<Conversation | undefined> {
  const db = options.db as unknown as Kysely<TaskRows>
  const rows = await db
    .selectFrom(A2A_TASK_TABLE)
    .select(['metadata'])
    .where('context_id', '=', options.contextId)
    .orderBy('status_last_updated', 'desc')
    .limit(20)
    .execute()
  let found: Conversation | undefined
  for (const row of rows) {
    const baton = readConversation(row.metadata)
    if (baton && (!found || baton.hop > found.hop)) found = baton
  }
  const correlationId = found?.correlationId ?? options.contextId
  const busHops = options.hops(correlationId)
  if (!found && busHops === 0) return undefined
  return { correlationId, hop: Math.max(found?.hop ?? 0, busHops) }
}

function readConversation(metadata: string | null): Conversation | undefined {
  if (!metadata) return undefined
  try {
    const baton = (JSON.parse(metadata) as Partial<TaskConversationMetadata>).baton
    if (typeof baton?.correlationId === 'string' && typeof baton.hop === 'number') return baton
  } catch {
    // A task some other writer stored without Baton's metadata continues nothing.
  }
  return undefined
}
