import type { WorkspaceLease } from '../workspace/types'
import { sealBudget } from './sealable-budget'
import type { Subagent } from './subagent'
import { closeChild, notifyChanged, type SupervisorNodeState } from './supervisor-state'
import type { SubagentStatus } from './types'

const LIVE: readonly SubagentStatus[] = ['running', 'asking']
/** How long a cancel waits for a turn that ignores its aborted signal. */
const CANCEL_UNWIND_MS = 30_000

/**
 * Cancels one sub-agent and everything below it. Its budget is cancelled first (nothing new
 * is charged), its open children are cancelled, its process group stopped, its turn waited
 * for (a call in flight that returns is recorded now, never later), and then its budget is
 * sealed: whatever its runner does afterwards is refused. A sub-agent is closed once: a later
 * cancel (or an ancestor's) shares the first one's work, so cancelling a finished subtree
 * costs nothing more.
 *
 * @example
 * await cancelSubagent(node, subagent) // subagent.status === 'cancelled' if it could still go on
 */
export async function cancelSubagent(node: SupervisorNodeState, subagent: Subagent): Promise<void> {
  const willGoOn =
    LIVE.includes(subagent.status) || (subagent.status === 'done' && subagent.multiTurn)
  if (willGoOn) {
    subagent.status = 'cancelled'
    subagent.endedAt = Date.now()
    delete subagent.question
  }
  subagent.closing ??= close(node, subagent)
  await subagent.closing
  if (willGoOn) {
    node.tree.events.emit('agent-cancel', {
      id: subagent.id,
      parentId: node.ownerId,
      depth: node.depth + 1,
    })
    notifyChanged(node, subagent)
  }
}

/**
 * Cancels every sub-agent of `node` that is not closed yet.
 *
 * @example
 * await cancelOpenChildren(node) // nothing node started is still running
 */
export async function cancelOpenChildren(node: SupervisorNodeState): Promise<void> {
  if (node.open.size === 0) return
  await Promise.all([...node.open].map((subagent) => cancelSubagent(node, subagent)))
}

async function close(node: SupervisorNodeState, subagent: Subagent): Promise<void> {
  // Sealed at once when nothing of it runs (its turn settled, no process): nothing can be
  // recorded against it from here on, and its budget need not be aborted (an abort builds an
  // error and reaches every signal below it, for a sub-agent that no longer listens).
  if (subagent.turnSettled && !subagent.process) sealBudget(subagent.budget)
  // From here on nothing new is recorded against it, even for calls already in flight.
  else subagent.budget.cancel(`sub-agent ${subagent.id} was cancelled by its caller`)
  // What its workspace holds (a browser context, a display and its programs) ends now, with
  // its processes, not at cleanup: a cancelled sub-agent cannot go on. Its files stay.
  await Promise.all([
    cancelOpenChildren(subagent.node),
    subagent.process?.stop(),
    disposeHeld(subagent),
  ])
  delete subagent.process
  if (subagent.workspaceKind === 'share') (subagent.workspace as WorkspaceLease).release()
  // Wait for the turn to unwind (its runner sees the aborted signal): a model call that was in
  // flight and still returns is paid for, and recorded before the cancel returns. Capped so a
  // runner that ignores the signal cannot hang it; a settled turn arms no timer at all.
  if (!subagent.turnSettled) await settledWithin(subagent.turn, CANCEL_UNWIND_MS)
  // Whatever the runner does later (a settle of a call it let go on, a charge), nothing more
  // reaches the books of this subtree: it is refused and reported as `charge-refused`.
  sealBudget(subagent.budget)
  closeChild(node, subagent)
}

/**
 * Ends what a sub-agent's own workspace holds besides its files (a lease of its caller's is
 * not its to end). Called once per sub-agent, however many of cancel, its turn's end and
 * `cleanup` ask for it.
 *
 * @example
 * await disposeHeld(subagent) // its browser context is closed
 */
export function disposeHeld(subagent: Subagent): Promise<void> {
  if (subagent.workspaceKind === 'share') return Promise.resolve()
  subagent.disposing ??= (subagent.workspace.dispose?.() ?? Promise.resolve()).catch(() => {})
  return subagent.disposing
}

async function settledWithin(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
