import type { Task } from '@a2a-js/sdk'
import {
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
  for (const event of events) await manager.processEvent(event)
  return store.load(taskId, context)
}
