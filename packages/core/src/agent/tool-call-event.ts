import { InvalidToolInputError, NoSuchToolError } from 'ai'
import { BatonError } from '../errors/baton-error'

/** Why a tool call failed: a stable code and the message the model was given. */
export type ToolCallError = { code: string; message: string }

type ToolCallFields = {
  /** The call's id in the model's answer. */
  toolCallId: string
  /** The name the model called (`mcp__files__read_file`). */
  name: string
  /** The tool's own name (`read_file` on MCP server `files`; else the same as `name`). */
  tool: string
  /** The MCP server that ran it, for an MCP tool. */
  server?: string
  /** The agent that called it. */
  wallet: string
}

/**
 * A tool call of an agent run as it happens: `tool-call` before the tool runs (or is refused),
 * `tool-result` after, with how long it took and, when it failed or was refused, why.
 */
export type ToolCallEvent =
  | (ToolCallFields & { type: 'tool-call'; input: unknown })
  | (ToolCallFields & { type: 'tool-result'; durationMs: number; error?: ToolCallError })

/** A `ToolCallEvent` before the run adds the agent's wallet. */
export type ToolCallReport = ToolCallEvent extends infer E
  ? E extends ToolCallEvent
    ? Omit<E, 'wallet'>
    : never
  : never

/**
 * The code and message of a failed tool call: a Baton error keeps its code (`MCP_TOOL_ERROR`,
 * `MCP_TIMEOUT`, ...); a tool the run does not have is `TOOL_UNAVAILABLE`, input its schema
 * refuses `TOOL_INPUT_INVALID`, anything else a tool threw `TOOL_FAILED`.
 *
 * @example
 * toolCallError(new NoSuchToolError({ toolName: 'search' })) // { code: 'TOOL_UNAVAILABLE', message: '...' }
 */
export function toolCallError(error: unknown, message: string): ToolCallError {
  if (BatonError.isInstance(error)) return { code: error.code, message }
  if (NoSuchToolError.isInstance(error)) return { code: 'TOOL_UNAVAILABLE', message }
  if (InvalidToolInputError.isInstance(error)) return { code: 'TOOL_INPUT_INVALID', message }
  return { code: 'TOOL_FAILED', message }
}
