import type { LanguageModelV3ToolCall } from '@ai-sdk/provider'
import {
  asSchema,
  InvalidToolInputError,
  type ModelMessage,
  NoSuchToolError,
  type ToolResultPart,
  type ToolSet,
} from 'ai'
import { withToolSpan } from '../telemetry/tool-span'

/** One tool call of a step, parsed, with its outcome once it ran. */
export type ToolOutcome = {
  toolCallId: string
  toolName: string
  input: unknown
  /** Set when the call could not run or threw; the model is told the message. */
  error?: string
  output?: unknown
  /** What the model is sent as the call's result. */
  modelOutput?: ToolResultPart['output']
}

/**
 * Parses and runs the tool calls of one step, as the AI SDK's generateText does: a call of a
 * tool not bound for the run, or with input its schema refuses, is never executed and
 * becomes an error result; a tool that throws becomes an error result too. A tool without
 * `execute` gets no result (the run stops there).
 *
 * @example
 * const outcomes = await runToolCalls({ calls, tools, messages, signal })
 */
export async function runToolCalls(options: {
  calls: LanguageModelV3ToolCall[]
  tools: ToolSet
  messages: ModelMessage[]
  signal: AbortSignal
}): Promise<ToolOutcome[]> {
  const { calls, tools, messages, signal } = options
  return Promise.all(
    calls.map(async (call): Promise<ToolOutcome> => {
      const base = { toolCallId: call.toolCallId, toolName: call.toolName }
      const tool = Object.hasOwn(tools, call.toolName) ? tools[call.toolName] : undefined
      if (!tool) {
        const error = new NoSuchToolError({
          toolName: call.toolName,
          availableTools: Object.keys(tools),
        })
        return failed({ ...base, input: parseLoosely(call.input) }, error)
      }
      const parsed = await parseInput(call, tool.inputSchema)
      if (!parsed.success) return failed({ ...base, input: parseLoosely(call.input) }, parsed.error)
      const outcome: ToolOutcome = { ...base, input: parsed.value }
      if (!tool.execute) return outcome
      try {
        const execute = tool.execute
        const output = await withToolSpan(
          { toolName: call.toolName, toolCallId: call.toolCallId, input: parsed.value },
          async () => {
            const value: unknown = await execute(parsed.value, {
              toolCallId: call.toolCallId,
              messages,
              abortSignal: signal,
            })
            // A streaming tool yields partial outputs; its result is the last one.
            if (!isAsyncIterable(value)) return value
            let last: unknown
            for await (const part of value) last = part
            return last
          },
        )
        const modelOutput = tool.toModelOutput
          ? await tool.toModelOutput({ toolCallId: call.toolCallId, input: parsed.value, output })
          : typeof output === 'string'
            ? { type: 'text' as const, value: output }
            : { type: 'json' as const, value: (output ?? null) as never }
        return { ...outcome, output, modelOutput }
      } catch (error) {
        return failed(outcome, error)
      }
    }),
  )
}

function failed(outcome: ToolOutcome, error: unknown): ToolOutcome {
  const message = errorMessage(error)
  return { ...outcome, error: message, modelOutput: { type: 'error-text', value: message } }
}

async function parseInput(
  call: LanguageModelV3ToolCall,
  inputSchema: Parameters<typeof asSchema>[0],
): Promise<{ success: true; value: unknown } | { success: false; error: unknown }> {
  const text = call.input.trim()
  let value: unknown
  try {
    value = text === '' ? {} : JSON.parse(text)
  } catch (cause) {
    return {
      success: false,
      error: new InvalidToolInputError({ toolName: call.toolName, toolInput: call.input, cause }),
    }
  }
  const schema = asSchema(inputSchema)
  if (!schema.validate) return { success: true, value }
  const checked = await schema.validate(value)
  if (checked.success) return { success: true, value: checked.value }
  return {
    success: false,
    error: new InvalidToolInputError({
      toolName: call.toolName,
      toolInput: call.input,
      cause: checked.error,
    }),
  }
}

function parseLoosely(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function'
}

function errorMessage(error: unknown): string {
  if (error == null) return 'unknown error'
  if (typeof error === 'string') return error
  if (error instanceof Error) return error.message
  return JSON.stringify(error)
}
