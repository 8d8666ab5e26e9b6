import { type Agent, BatonError } from '@baton/core'
import type { ToolExecutionOptions, ToolSet } from 'ai'
import { fileToolsFor } from '../workspace/create-file-tools'
import { createAskCallerTool } from './ask-caller-tool'
import { delegationToolsFor } from './create-delegation-tools'
import { composeGrant } from './granted-tools'
import type { Subagent } from './subagent'
import type { SupervisorNodeState, SupervisorTree } from './supervisor-state'

/**
 * How a tool made once for a whole tree finds the sub-agent it works for: a runner that
 * `passesToolContext` (the default one does) hands it to each call as `experimental_context`. Its fields are private, so another tool of
 * the same run, handed the same context, cannot reach the sub-agent through it.
 */
export class SubagentToolContext {
  readonly #node: SupervisorNodeState
  readonly #subagent: Subagent

  /** `node` is the supervisor that started `subagent` (whom its `ask_caller` asks). */
  constructor(node: SupervisorNodeState, subagent: Subagent) {
    this.#node = node
    this.#subagent = subagent
  }

  /** The sub-agent a call is made for. */
  static subagentOf(options: ToolExecutionOptions): Subagent {
    return SubagentToolContext.#of(options).#subagent
  }

  /** The supervisor that started the sub-agent a call is made for. */
  static callerOf(options: ToolExecutionOptions): SupervisorNodeState {
    return SubagentToolContext.#of(options).#node
  }

  static #of(options: ToolExecutionOptions): SubagentToolContext {
    const context = options?.experimental_context
    if (context instanceof SubagentToolContext) return context
    throw new SubagentToolContextError()
  }
}

/**
 * A tool made once for a tree's sub-agents was called without the sub-agent it is for: by a
 * runner that declares `passesToolContext` but did not hand `turn.toolContext` to the call.
 */
export class SubagentToolContextError extends BatonError {
  override name = 'SubagentToolContextError'
  constructor() {
    super(
      'SUBAGENT_TOOL_CONTEXT_MISSING',
      "This sub-agent tool was called without its sub-agent: a runner that passesToolContext hands turn.toolContext to every call, as experimental_context (runAgent's toolContext option).",
    )
  }
}

/** The tools of a tree made for one grant: the card's listed tools, and whether it delegates. */
type SharedTools = {
  listed: readonly string[]
  delegates: boolean
  tools: ToolSet
  /** `Object.keys(tools)`, for the grant recorded on the card. */
  names: readonly string[]
}

// A tree whose sub-agents' cards differ in more ways than this keeps the grants seen last.
const MAX_GRANTS = 8

/**
 * The tools a sub-agent of `tree` with `agent`'s card is granted, made once per tree and grant
 * and shared by every such sub-agent: the file tools its card lists, the delegation tools when
 * it may delegate, and `ask_caller`. Each finds its sub-agent through the call's
 * `SubagentToolContext`, so a thousand sub-agents hold no tools of their own. For a workspace
 * kind with tools of its own (a browser, a display), the tools stay bound per sub-agent.
 *
 * @example
 * const { tools, names } = sharedTurnTools(tree, subagent.agent, ask)
 * turn.toolContext = new SubagentToolContext(node, subagent)
 */
export function sharedTurnTools(
  tree: SupervisorTree,
  agent: Pick<Agent, 'tools'> & { agentCard?: { canDelegate?: boolean } },
  ask: (node: SupervisorNodeState, subagent: Subagent, question: string) => Promise<string>,
): { tools: ToolSet; names: readonly string[] } {
  const listed = agent.tools ?? []
  const delegates = agent.agentCard?.canDelegate === true
  const grants = tree.sharedTools
  for (const grant of grants) {
    if (grant.delegates === delegates && sameNames(grant.listed, listed)) return grant
  }
  const tools = composeGrant({
    agent,
    files: () => fileToolsFor((options) => SubagentToolContext.subagentOf(options).workspace),
    delegation: () =>
      delegationToolsFor((options) => SubagentToolContext.subagentOf(options).supervisor),
  })
  // Always: it is how a sub-agent reports back that it is stuck, and it reaches no one else.
  tools.ask_caller = createAskCallerTool((question, options) =>
    ask(SubagentToolContext.callerOf(options), SubagentToolContext.subagentOf(options), question),
  )
  const grant: SharedTools = {
    listed: [...listed],
    delegates,
    tools,
    // Frozen: the cards granted it key their cache on this very list.
    names: Object.freeze(Object.keys(tools)),
  }
  if (grants.length === MAX_GRANTS) grants.shift()
  grants.push(grant)
  return grant
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false
  return true
}

export type { SharedTools }
