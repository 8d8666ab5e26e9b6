import type { Kysely } from 'kysely'
import { A2A_TASK_TABLE } from './a2a-task-store'

/** Where a conversation stands: the bus correlation it belongs to and its last hop. */
export type Conversation = { correlationId: string; hop: number }

/** What an A2A task remembers of the Baton conversation it ran in (in its `metadata.baton`). */
export type TaskConversationMetadata = { baton: Conversation }

/** A task this process is executing, and the conversation it runs in. */
export type RunningTask = { taskId: string; contextId: string; conversation: Conversation }

type TaskRows = Record<
  string,
  {
    id: string
    context_id: string
    metadata: string | null
    status_state: string | null
    status_last_updated: number | string
  }
>

const inProgress = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'])
/**
 * A task stored as in progress but not updated for this long is taken for one whose process
 * died (hosted agents run for two minutes by default), not for work still being passed on.
 */
const STALE_AFTER_MS = 15 * 60_000

export type FindConversationOptions = {
  db: Kysely<unknown>
  /** The message's A2A `contextId`. */
  contextId: string
  /** The task the message starts or continues (never a forward of itself). */
  taskId: string
  /** The hop a calling Baton agent claims (`metadata.batonHop`); undefined for any other client. */
  claimedHop: number | undefined
  /** The bus's hop count of a correlation (0 when it has not seen it). */
  hops: (correlationId: string) => number
  /** Tasks this process is executing now (the database is behind on their state). */
  running: Iterable<RunningTask>
  /** The context was made up for this message (it named none): no stored task can be in it. */
  newContext?: boolean
}

/**
 * The conversation (bus correlation and hop) an arriving A2A message is one hop of. The loop
 * guard is for agents handing work back and forth, so only those count hops:
 * - a message in a context where a hosted agent is still working (a task in progress, here or
 *   on another process) is that agent passing its work on: its conversation, one hop further;
 * - a message from a Baton agent (`metadata.batonHop`) continues that agent's conversation,
 *   whose correlation is the `contextId`: the hop can only grow from what this server knows;
 * - a context that is a bus conversation's correlation (and no A2A context) continues it;
 * - anything else is a client's own turn: a chain of its own at hop 0 (correlation: the
 *   `contextId` for a new context, else `<contextId>/<taskId>`), however many turns came before.
 *
 * @example
 * const { correlationId, hop } = await findConversation({ db, contextId, taskId, claimedHop: undefined, hops: (id) => bus.hops(id), running: [] })
 */
export async function findConversation(options: FindConversationOptions): Promise<Conversation> {
  const { contextId } = options
  const db = options.db as unknown as Kysely<TaskRows>
  const rows = options.newContext
    ? []
    : await db
        .selectFrom(A2A_TASK_TABLE)
        .select(['id', 'metadata', 'status_state', 'status_last_updated'])
        .where('context_id', '=', contextId)
        .orderBy('status_last_updated', 'desc')
        .limit(20)
        .execute()
  const tasks = rows.filter((row) => row.id !== options.taskId)
  const working = [
    ...[...options.running]
      .filter(
        (task) =>
          task.taskId !== options.taskId &&
          (task.contextId === contextId || task.conversation.correlationId === contextId),
      )
      .map((task) => task.conversation),
    ...tasks
      .filter(
        (row) =>
          row.status_state !== null &&
          inProgress.has(row.status_state) &&
          Date.now() - Number(row.status_last_updated) < STALE_AFTER_MS,
      )
      .flatMap((row) => readConversation(row.metadata) ?? []),
  ]
  const claimed = options.claimedHop ?? 0
  const passedOn = highest(working)
  if (passedOn) return next(passedOn, options, claimed)

  const seen = highest(
    tasks
      .flatMap((row) => readConversation(row.metadata) ?? [])
      .filter((conversation) => conversation.correlationId === contextId),
  )
  const busHops = options.hops(contextId)
  if (options.claimedHop !== undefined) {
    return seen || busHops > 0
      ? next({ correlationId: contextId, hop: seen?.hop ?? 0 }, options, claimed)
      : { correlationId: contextId, hop: claimed }
  }
  if (tasks.length === 0 && busHops > 0) {
    return next({ correlationId: contextId, hop: 0 }, options, 0)
  }
  return {
    correlationId: tasks.length === 0 ? contextId : `${contextId}/${options.taskId}`,
    hop: 0,
  }
}

/** One hop past the conversation's last, as far as the tasks and the bus know it. */
function next(
  conversation: Conversation,
  options: Pick<FindConversationOptions, 'hops'>,
  claimed: number,
): Conversation {
  const last = Math.max(conversation.hop, options.hops(conversation.correlationId))
  return { correlationId: conversation.correlationId, hop: Math.max(last + 1, claimed) }
}

function highest(conversations: readonly Conversation[]): Conversation | undefined {
  let found: Conversation | undefined
  for (const conversation of conversations) {
    if (!found || conversation.hop > found.hop) found = conversation
  }
  return found
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
