import type { LanguageModelUsage, ModelMessage, OutputInterface, ToolSet } from 'ai'
import type { MemoryStore } from '../memory/types'
import type { ModelRegistry, PriceTable } from '../models/types'
import type { Agent, Budget } from '../schemas'
import type { ToolRegistry } from '../tools/types'
import type { ToolCallEvent } from './tool-call-event'

/** One model call of an agent run, with the tool calls it made. */
export type AgentStep = {
  index: number
  text: string
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[]
  toolResults: { toolCallId: string; toolName: string; output: unknown }[]
  usage: { calls: number; tokens: number; costUsd: number }
  finishReason: string
}

/**
 * What a streamed run hands over as it happens (`onDelta`): text and reasoning as the model
 * sends them, each tool call once the model has finished it, and each tool's result once the
 * tool has run. `step` is the index of the model call (as `AgentStep.index`).
 */
export type AgentDelta =
  | { type: 'text-delta'; step: number; text: string }
  | { type: 'reasoning-delta'; step: number; text: string }
  | { type: 'tool-call'; step: number; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; step: number; toolCallId: string; toolName: string; output: unknown }

export type RunAgentOptions = {
  /** Every model call is reserved on it before it is made and settled after. */
  budget: Budget
  /** Stops the run between and during model calls. */
  signal?: AbortSignal
  /** Narrows the card's `tools` for this run; naming a tool the card does not list throws. */
  tools?: string[]
  /** Where the card's tool names are looked up (default: no named tools available). */
  toolRegistry?: ToolRegistry
  /**
   * Tools the runtime provides for this run (e.g. workspace file tools), looked up before the
   * tool registry. Like a registry's tools, each is bound only when the card's `tools` lists
   * it (and the run's `tools` keeps it): a runtime that grants a tool lists its name on the
   * card it passes, so the card records every tool the agent had.
   */
  extraTools?: ToolSet
  /**
   * Handed to every tool's `execute` as `experimental_context`, the AI SDK's field for it
   * (`execute(input, { toolCallId, messages, abortSignal, experimental_context })`): tools made
   * once can serve many runs, each finding its own user, workspace or handle there. Left out
   * of the call when not given.
   */
  toolContext?: unknown
  /**
   * What a tool the card lists, and neither `toolRegistry` nor `extraTools` provides, does:
   * `'throw'` (the default) is an `UnknownToolError` before any model call; `'skip'` leaves it
   * out of this run; a list of names leaves out those and throws for any other. For a runtime
   * that grants some tools only in some places (a workspace's file tools inside a `task`).
   */
  unprovidedTools?: 'throw' | 'skip' | readonly string[]
  /** Overrides the card's persona (system prompt). */
  persona?: string
  /** Read before the run and appended after it, in the agent's `memoryScope`. */
  memory?: MemoryStore
  /** Resolves the card's `provider:model-id` (default: the built-in providers from the environment). */
  models?: ModelRegistry
  /** Overrides the default price table. */
  prices?: PriceTable
  /** At most the card's `maxIterations`. */
  maxIterations?: number
  /** Called after each model call. */
  onStep?: (step: AgentStep) => void
  /**
   * Streams the run: each model call is made with `doStream` instead of `doGenerate`, and its
   * deltas, tool calls and tool results are handed here as they come. Everything else (card
   * gating, budget, tools, attribution, memory, the result) is the same as without it.
   */
  onDelta?: (delta: AgentDelta) => void
  /**
   * Called for each tool call as it happens: `tool-call` before the tool runs (or is refused),
   * `tool-result` after it, with its duration, its error, and for an MCP tool its server.
   */
  onToolCall?: (event: ToolCallEvent) => void
  /** How many memory entries of the agent's scope are recalled (default 20). */
  memoryLimit?: number
  /** Retries of a model call that failed with a retryable provider error (default 2). */
  maxRetries?: number
  /**
   * Structured output for the final answer, e.g. `Output.object({ schema })` from `ai`;
   * the parsed value comes back as `result.output`.
   */
  output?: OutputInterface
}

export type AgentRunResult = {
  text: string
  usage: { calls: number; tokens: number; costUsd: number }
  steps: AgentStep[]
  /** The wallet every charge of this run was attributed to. */
  wallet: Agent['wallet']
  finishReason: string
  /** The assistant and tool messages the run added, for continuing the conversation. */
  messages: ModelMessage[]
  /** The parsed structured output, when `options.output` asked for one. */
  output?: unknown
}

export type { LanguageModelUsage }
