import type { Agent, Budget, ModelRegistry, ToolRegistry } from '@baton/core'
import type { ModelMessage, ToolSet } from 'ai'

/** One turn of a sub-agent: what it is given to work with. */
export type SubagentTurn = {
  /**
   * The sub-agent's card: the caller's, with the model chosen at `delegate`, and with the name
   * of every tool in `tools` on its `tools` list (the grant, recorded on the card), so
   * `runAgent`, which binds only what the card lists, binds them all.
   */
  agent: Agent
  /** The conversation so far, ending with the task or the new message from its caller. */
  messages: ModelMessage[]
  /** The sub-agent's own budget, carved from its caller's; every model call is charged here. */
  budget: Budget
  /** Aborted when it is cancelled or its budget runs out. */
  signal: AbortSignal
  /**
   * What the supervisor grants it: the file tools its card lists, bounded to its directory,
   * `ask_caller`, and the tools to delegate further when its card may delegate.
   */
  tools: ToolSet
  /** Its workspace directory. */
  directory: string
  /**
   * Set when `tools` are the ones its tree makes once for all its sub-agents (for a runner
   * that `passesToolContext`): each finds this sub-agent through it, handed to `execute` as
   * `experimental_context` (`runAgent`'s `toolContext`).
   */
  toolContext?: unknown
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
}

export type SubagentTurnResult = {
  text: string
  /** The turn's own messages (assistant and tool), appended to the conversation for the next turn. */
  messages: ModelMessage[]
}

/** Runs a sub-agent's turn; the default runs it with `runAgent` from `@baton/core`. */
export interface SubagentRunner {
  run(turn: SubagentTurn): Promise<SubagentTurnResult>
  /**
   * True when the runner changes a sub-agent's files only through the tools it is given (as
   * `runAgent` does). Its sub-agents' directories are then made off the critical path and
   * their reports need no snapshot of the disk: a file tool that wrote nothing changed nothing.
   * Leave it out for a runner that writes to `directory` itself.
   */
  readonly filesOnlyThroughTools?: boolean
  /**
   * True when the runner hands `turn.toolContext` to every call of `turn.tools` it makes, as
   * `experimental_context` (`runAgent` does, given it as `toolContext`). Its sub-agents then
   * share the tools their tree makes once, which find their sub-agent through it, instead of
   * each getting tools of its own: a fan-out of 1000 sub-agents holds no tool objects per
   * sub-agent. Leave it out for a runner that calls the tools without it: it gets tools bound
   * to the sub-agent. A shared tool called without its context refuses with
   * `SubagentToolContextError`.
   */
  readonly passesToolContext?: boolean
}
