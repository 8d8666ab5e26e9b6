import type { Task, TaskArtifactUpdateEvent } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutionEvent,
  InMemoryTaskStore,
  ResultManager,
  ServerCallContext,
} from '@a2a-js/sdk/server'

// Its own scope: the SDK's task-write locks are per (tenant, owner, task) and process-wide.
const scope = 'baton.fold'

/**
 * The task as `events` leave it, applied in order as the executing process's own
 * `ResultManager` applied them (a status replaces the last, an artifact chunk is appended or
 * replaces, a status message joins the history). They apply onto their own first `task`
 * event or, for a later turn whose events start with an update, onto `base` (the task as
 * stored); undefined when there is neither.
 *
 * The pieces of an answer streamed one after another are applied as one update (see
 * `joinPieces`): the SDK copies the whole task for each event it applies, so a long answer's
 * n pieces one by one would cost n² (2 400 pieces: 14 s of one process's time).
 *
 * @example
 * const task = await foldTaskEvents(taskId, [AgentEvent.task(submitted), working, chunk])
 */
export async function foldTaskEvents(
  taskId: string,
  events: readonly AgentExecutionEvent[],
  base?: () => Promise<Task | undefined>,
): Promise<Task | undefined> {
  const store = new InMemoryTaskStore(() => scope)
  const context = new ServerCallContext({ tenant: scope })
  if (events[0]?.kind !== 'task') {
    const stored = await base?.()
    if (!stored) return undefined
    await store.save(stored, context)
  }
  const manager = new ResultManager(store, context)
  for (const event of joinPieces(events)) await manager.processEvent(event)
  return store.load(taskId, context)
}

/**
 * `events` with each run of updates that append to one artifact (`append: true`, the same
 * task and artifact id, one after another) joined to the update before them: what applying
 * them one by one comes to, as the SDK applies an appended piece (its parts added; its name
 * and description, when it has them, and its metadata taking over). The events given are not
 * changed.
 */
export function joinPieces(events: readonly AgentExecutionEvent[]): AgentExecutionEvent[] {
  const joined: AgentExecutionEvent[] = []
  // The last update kept, a copy of its own that later pieces are added to.
  let open: TaskArtifactUpdateEvent | undefined
  for (const event of events) {
    if (event.kind !== 'artifactUpdate' || !event.data.artifact) {
      open = undefined
      joined.push(event)
      continue
    }
    const update = event.data
    const artifact = update.artifact!
    const into = open?.artifact
    if (
      update.append &&
      into &&
      open!.taskId === update.taskId &&
      into.artifactId === artifact.artifactId
    ) {
      into.parts.push(...artifact.parts)
      if (artifact.name) into.name = artifact.name
      if (artifact.description) into.description = artifact.description
      if (artifact.metadata) into.metadata = { ...into.metadata, ...artifact.metadata }
      if (update.metadata) open!.metadata = { ...open!.metadata, ...update.metadata }
      open!.lastChunk = update.lastChunk
      continue
    }
    open = { ...update, artifact: { ...artifact, parts: [...artifact.parts] } }
    joined.push(AgentEvent.artifactUpdate(open))
  }
  return joined
}
