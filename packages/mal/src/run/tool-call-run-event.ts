import { hashJson, type ToolCallEvent } from '@baton/core'
import { z } from 'zod'

/** Which tool was called, by whom: the fields `tool-call` and `tool-result` events share. */
export const ToolCallFields = {
  /** The call's id in the model's answer (a `tool-result` has its `tool-call`'s). */
  toolCallId: z.string(),
  /** The name the model called (`mcp__files__read_file`). */
  name: z.string(),
  /** The tool's own name (`read_file`); the same as `name` for a tool that is not an MCP server's. */
  tool: z.string(),
  /** The MCP server that ran it. */
  server: z.string().optional(),
  /** The agent that called it (an agent of the step, or a sub-agent of a `task`). */
  wallet: z.string(),
}

/**
 * A `tool-call` event's own fields: the tool's input as the model gave it (past
 * `MAX_INPUT_CHARS` of JSON, a `{ truncated, chars, preview }` summary, so a file written
 * through a tool is not stored again in the run's events) and the hash of all of it.
 */
export const ToolCallStartFields = {
  input: z.unknown(),
  /** keccak-256 of the whole input's canonical JSON (what the receipt records). */
  inputHash: z.string(),
}

/** Inputs longer than this (as JSON) are summarised in the event. */
export const MAX_INPUT_CHARS = 8192

/** A `tool-result` event's own fields: how long the call took, and why it failed if it did. */
export const ToolResultFields = {
  durationMs: z.number().nonnegative(),
  /** The call failed, or was refused (`TOOL_UNAVAILABLE`, `TOOL_INPUT_INVALID`, `MCP_TOOL_ERROR`...). */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
}

/**
 * An agent's tool call as a run event of the step it happened in (`where`: its path, op...).
 *
 * @example
 * emit(toolCallRunEvent(where, event)) // { type: 'tool-call', path: 'steps[0]', name: 'mcp__files__read_file', server: 'files', ... }
 */
export function toolCallRunEvent<W extends object>(where: W, event: ToolCallEvent) {
  const { type, toolCallId, name, tool, server, wallet } = event
  const names = { ...where, toolCallId, name, tool, ...(server ? { server } : {}), wallet }
  if (type === 'tool-call') {
    return { type, ...names, ...recordedInput(event.input) }
  }
  return {
    type,
    ...names,
    durationMs: event.durationMs,
    ...(event.error ? { error: event.error } : {}),
  }
}

function recordedInput(input: unknown): { input: unknown; inputHash: string } {
  const value = input === undefined ? null : input
  const json = JSON.stringify(value) ?? 'null'
  const inputHash = hashJson(value)
  if (json.length <= MAX_INPUT_CHARS) return { input: value, inputHash }
  return { input: { truncated: true, chars: json.length, preview: json.slice(0, 1000) }, inputHash }
}
