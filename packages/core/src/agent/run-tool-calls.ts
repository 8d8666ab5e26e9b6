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
import { toolSourceOf } from '../tools/tool-source'
import { type ToolCallReport, toolCallError } from './tool-call-event'

/** One tool call of a step, parsed, with its outcome once it ran. */
export type ToolOutcome = {
  toolCallId: string
  toolName: string
  input: unknown
  /** Set when the call could not run or threw; the model is told the message. */
  error?: string
  /** The error's code (see `toolCallError`). */
  errorCode?: string
  output?: unknown
  /** What the model is sent as the call's result. */
  modelOutput?: ToolResultPart['output']
}

/**
 * Parses and runs the tool calls of one step, as the AI SDK's generateText does: a call of a
 * tool not bound for the run, or with input its schema refuses, is never executed and
 * becomes an error result; a tool that throws becomes an error result too. A tool without
 * `execute` gets no result (the run stops there). `onReport` hears of each call before it runs
 * (or is refused) and after, with its duration and error.
 *
 * @example
 * const outcomes = await runToolCalls({ calls, tools, messages, signal })
 */
export async function runToolCalls(options: {
  calls: LanguageModelV3ToolCall[]
  tools: ToolSet
  messages: ModelMessage[]
  signal: AbortSignal
  onReport?: ((report: ToolCallReport) => void) | undefined
  /** Handed to each `execute` as `experimental_context` (see `RunAgentOptions.toolContext`). */
  context?: unknown
}): Promise<ToolOutcome[]> {
  const { calls, tools, messages, signal, onReport, context } = options
  return Promise.all(
    calls.map(async (call): Promise<ToolOutcome> => {
      const tool = Object.hasOwn(tools, call.toolName) ? tools[call.toolName] : undefined
      const reported = reporter(call, tool, onReport)
      const available = () => Object.keys(tools)
      const outcome = await runToolCall({
        call,
        tool,
        available,
        messages,
        signal,
        reported,
        context,
      })
      reported?.finished(outcome)
      return outcome
    }),
  )
}

type Reported = {
  called(input: unknown): void
  finished(outcome: ToolOutcome): void
}

/** Reports one call: `tool-call` once its input is known, `tool-result` when it is over. */
function reporter(
  call: LanguageModelV3ToolCall,
  tool: ToolSet[string] | undefined,
  onReport: ((report: ToolCallReport) => void) | undefined,
): Reported | undefined {
  if (!onReport) return undefined
  const source = toolSourceOf(tool)
  const names = {
    toolCallId: call.toolCallId,
    name: call.toolName,
    tool: source?.tool ?? call.toolName,
    ...(source ? { server: source.server } : {}),
  }
  let started = performance.now()
  return {
    called(input) {
      started = performance.now()
      onReport({ type: 'tool-call', ...names, input })
    },
    finished(outcome) {
      const durationMs = Math.round((performance.now() - started) * 100) / 100
      onReport({
        type: 'tool-result',
        ...names,
        durationMs,
        ...(outcome.error === undefined
          ? {}
          : { error: { code: outcome.errorCode ?? 'TOOL_FAILED', message: outcome.error } }),
      })
    },
  }
}

async function runToolCall(options: {
  call: LanguageModelV3ToolCall
  tool: ToolSet[string] | undefined
  available: () => string[]
  messages: ModelMessage[]
  signal: AbortSignal
  reported: Reported | undefined
  context: unknown
}): Promise<ToolOutcome> {
  const { call, tool, messages, signal, reported, context } = options
  const base = { toolCallId: call.toolCallId, toolName: call.toolName }
  if (!tool) {
    const error = new NoSuchToolError({
      toolName: call.toolName,
      availableTools: options.available(),
    })
    const input = parseLoosely(call.input)
    reported?.called(input)
    return failed({ ...base, input }, error)
  }
  const parsed = await parseInput(call, tool.inputSchema)
  if (!parsed.success) {
    const input = parseLoosely(call.input)
    reported?.called(input)
    return failed({ ...base, input }, parsed.error)
  }
  const outcome: ToolOutcome = { ...base, input: parsed.value }
  reported?.called(parsed.value)
  if (!tool.execute) return outcome
  try {
    const execute = tool.execute
    const output = await withToolSpan(
      { toolName: call.toolName, toolCallId: call.toolCallId, input: parsed.value },
      async () => {
        const value: unknown = await execute(
          parsed.value,
          context === undefined
            ? { toolCallId: call.toolCallId, messages, abortSignal: signal }
            : {
                toolCallId: call.toolCallId,
                messages,
                abortSignal: signal,
                experimental_context: context,
              },
        )
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
}

function failed(outcome: ToolOutcome, error: unknown): ToolOutcome {
  const message = errorMessage(error)
  return {
    ...outcome,
    error: message,
    errorCode: toolCallError(error, message).code,
    modelOutput: { type: 'error-text', value: message },
  }
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
