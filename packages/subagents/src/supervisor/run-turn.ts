import type { ToolSet } from 'ai'
import { startAdapterProcess } from '../adapters/start-adapter-process'
import type { AgentAdapter } from '../adapters/types'
import { withBudgetSignal } from '../runner/turn-signal'
import type { WorkspaceLease } from '../workspace/types'
import { createAskCallerTool } from './ask-caller-tool'
import { cancelOpenChildren, disposeHeld } from './cancel-subagent'
import { grantedTools } from './granted-tools'
import { hasKeys } from './has-keys'
import { SubagentToolContext, sharedTurnTools } from './shared-turn-tools'
import { messageOf, statusOf } from './status-of'
import type { Subagent } from './subagent'
import { grantedCard } from './subagent-card'
import { notifyChanged, type SupervisorNodeState } from './supervisor-state'
import type { SubagentStatus } from './types'

/**
 * Runs one turn of a sub-agent (its task, or a `sendAgent` message) to its end: a model turn
 * through the tree's runner, or an external agent's process. The status it ends with comes
 * from what it threw: out of budget, out of time, cancelled, or failed.
 *
 * @example
 * subagent.turn = runTurn(node, subagent, 'List the TODOs')
 */
export function runTurn(
  node: SupervisorNodeState,
  subagent: Subagent,
  text: string,
): Promise<void> {
  subagent.turns += 1
  subagent.turnSettled = false
  // A chain of promises rather than an async function: a turn in progress then holds no
  // suspended frame of its own (~0.35 KB for each sub-agent running, or waiting on its own).
  let work: Promise<void>
  try {
    work = readyForTurn(subagent).then(() => {
      subagent.budget.throwIfAborted()
      return subagent.adapter
        ? runAdapterTurn(node, subagent, subagent.adapter, text)
        : runModelTurn(node, subagent, text)
    })
  } catch (error) {
    work = Promise.reject(error)
  }
  return work.then(
    () => {
      subagent.turnSettled = true
      finishTurn(node, subagent, 'done')
    },
    (error: unknown) => {
      // Finished before it counts as settled, as the `catch` of a `try … finally` would.
      try {
        finishTurn(node, subagent, statusOf(error, subagent.budget), error)
      } finally {
        subagent.turnSettled = true
      }
    },
  )
}

// What a turn waits for before it starts: its directory, for what may touch it without the
// file tools (an external agent's process, a custom runner; a model turn's file tools wait on
// their own), and the snapshot a report compares with.
function readyForTurn(subagent: Subagent): Promise<unknown> {
  return subagent.filesOnlyThroughTools
    ? subagent.baseline
    : subagent.ensureDirectory().then(() => subagent.baseline)
}

// Not async: it is called in `runTurn`'s chain, where a throw here lands as a rejection would,
// and a turn in progress holds no suspended frame of its own.
function runModelTurn(node: SupervisorNodeState, subagent: Subagent, text: string): Promise<void> {
  const { tree } = node
  const { options, runner } = tree
  // Joined, not pushed: a first push reserves 17 slots, which every sub-agent of a fan-out
  // would hold while it runs and after (the conversation is kept for its next turn).
  subagent.conversation = subagent.conversation.concat({ role: 'user', content: text })
  // A runner that hands the turn's context to every tool call (the default one does) gets the
  // tools its tree made once. Any other runner may call the tools without the context, and a
  // workspace kind may bring tools of its own: those get tools bound to their sub-agent.
  const own = subagent.workspace.tools?.()
  const shared =
    runner.passesToolContext === true && (own === undefined || !hasKeys(own))
      ? sharedTurnTools(tree, subagent.agent, ask)
      : undefined
  const tools = shared?.tools ?? boundTools(node, subagent, own)
  const turn = withBudgetSignal({
    // The supervisor grants; the card records the grant, so a runner that gates tools by the
    // card (as `runAgent` does) binds exactly these and nothing else.
    agent: grantedCard(subagent.agent, shared?.names ?? Object.keys(tools)),
    messages: [...subagent.conversation],
    budget: subagent.budget,
    tools,
    directory: subagent.workspace.root,
  })
  if (shared) turn.toolContext = new SubagentToolContext(node, subagent)
  if (options.models) turn.models = options.models
  if (options.toolRegistry) turn.toolRegistry = options.toolRegistry
  // A runner written in JavaScript may answer with the result itself, as `await` allowed.
  return Promise.resolve(runner.run(turn)).then((result) => {
    subagent.conversation = subagent.conversation.concat(result.messages)
    subagent.result = result.text
  })
}

// The tools of one sub-agent's turn, bound to it (a new object each call: `ask_caller` is
// added to it in place).
function boundTools(
  node: SupervisorNodeState,
  subagent: Subagent,
  own: ToolSet | undefined,
): ToolSet {
  const tools = grantedTools({
    agent: subagent.agent,
    workspace: subagent.workspace,
    supervisor: subagent.supervisor,
    own,
  })
  // Always: it is how a sub-agent reports back that it is stuck, and it reaches no one else.
  tools.ask_caller = createAskCallerTool((question) => ask(node, subagent, question))
  return tools
}

async function runAdapterTurn(
  node: SupervisorNodeState,
  subagent: Subagent,
  adapter: AgentAdapter,
  text: string,
): Promise<void> {
  const child = startAdapterProcess({
    adapter,
    task: text,
    directory: subagent.workspace.root,
    context: {
      turn: subagent.turns,
      ...(subagent.sessionId ? { sessionId: subagent.sessionId } : {}),
    },
    budget: subagent.budget,
    wallet: subagent.agent.wallet,
    onQuestion: (question) => {
      ask(node, subagent, question).then(
        (answer) => child.answer(answer),
        () => {},
      )
    },
  })
  subagent.process = child
  const outcome = await child.outcome
  subagent.result = outcome.text
  if (outcome.sessionId) subagent.sessionId = outcome.sessionId
}

function ask(node: SupervisorNodeState, subagent: Subagent, question: string): Promise<string> {
  const { signal } = subagent.budget
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    subagent.answer = (text) => {
      signal.removeEventListener('abort', onAbort)
      resolve(text)
    }
    subagent.status = 'asking'
    subagent.question = question
    node.tree.events.emit('agent-question', {
      id: subagent.id,
      parentId: node.ownerId,
      depth: node.depth + 1,
      question,
    })
    notifyChanged(node, subagent)
  })
}

function finishTurn(
  node: SupervisorNodeState,
  subagent: Subagent,
  status: SubagentStatus,
  error?: unknown,
): void {
  if (subagent.status === 'cancelled') return
  if (subagent.workspaceFailure !== undefined) {
    status = 'failed'
    error = subagent.workspaceFailure
  }
  subagent.status = status
  subagent.endedAt = Date.now()
  delete subagent.process
  if (error !== undefined) subagent.error = messageOf(error)
  else delete subagent.error
  if (subagent.workspaceKind === 'share') (subagent.workspace as WorkspaceLease).release()
  // A sub-agent that will not go on leaves nothing of its own running behind it. Only its open
  // children are reached (each closed once), so a finished subtree is never walked again.
  if (status !== 'done' || !subagent.multiTurn) void cancelOpenChildren(subagent.node)
  // One that cannot go on (failed, out of budget or time) holds no browser or display either.
  if (status !== 'done' && status !== 'asking') void disposeHeld(subagent)
  node.tree.events.emit('agent-finish', {
    id: subagent.id,
    parentId: node.ownerId,
    depth: node.depth + 1,
    status,
    result: subagent.result,
    costUsd: subagent.budget.spent().costUsd,
  })
  notifyChanged(node, subagent)
}
