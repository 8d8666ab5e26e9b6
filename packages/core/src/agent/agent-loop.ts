import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3ToolCall,
} from '@ai-sdk/provider'
import {
  type AssistantContent,
  generateId,
  type ModelMessage,
  NoOutputGeneratedError,
  type OutputInterface,
  type ToolContent,
  type ToolSet,
} from 'ai'
import { asLanguageModelUsage, prepareRetries } from 'ai/internal'
import { collectStream } from './collect-stream'
import { madeModelTools, modelTools } from './model-tools'
import { runToolCalls, type ToolOutcome } from './run-tool-calls'
import { plainModelPrompt, toModelPrompt } from './to-model-prompt'
import type { ToolCallReport } from './tool-call-event'
import type { AgentDelta } from './types'

/** One model call of the loop and the tool calls it made. */
export type LoopStep = {
  text: string
  outcomes: ToolOutcome[]
  finishReason: string
}

export type AgentLoopOptions = {
  model: LanguageModelV3
  system: string
  messages: ModelMessage[]
  tools: ToolSet
  maxSteps: number
  /**
   * The run's signal, asked for only where one is needed: a retry's wait, a prompt's
   * downloads, a tool's call. A budget makes its signal when first asked.
   */
  signal: () => AbortSignal
  /**
   * Each model call's signal. Without one, the model is given the budget's by its charger
   * (`signalFromBudget`), made only if the model reads it.
   */
  callSignal?: AbortSignal | undefined
  maxRetries: number
  temperature?: number | undefined
  output?: OutputInterface | undefined
  onStep: (step: LoopStep) => void
  /** When given, each call is streamed (`doStream`) and its parts handed here as they come. */
  onDelta?: ((delta: AgentDelta) => void) | undefined
  /** Hears of each tool call before it runs and after (see `runToolCalls`). */
  onToolCall?: ((report: ToolCallReport) => void) | undefined
  /** Handed to each tool's `execute` as `experimental_context`. */
  toolContext?: unknown
}

/**
 * The agent loop on the provider's `LanguageModelV3` interface: call the model, run the tools
 * it asked for, and call it again with their results, until it answers without tool calls or
 * `maxSteps` calls were made. Baton owns the loop; the AI SDK still converts the prompt and the
 * tool definitions and retries retryable provider errors. Unlike `generateText`, it does not
 * re-validate the whole conversation with zod on every call, and converts each tool's schema
 * once per process.
 *
 * @example
 * const { text } = await runAgentLoop({ model, system, messages, tools, maxSteps: 8, signal: () => budget.signal, maxRetries: 2, onStep })
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<{
  text: string
  finishReason: string
  messages: ModelMessage[]
  output?: unknown
}> {
  const { model, system, messages, tools, signal, callSignal, output } = options
  const urls = model.supportedUrls
  const supportedUrls = 'then' in urls ? await urls : urls
  const definitions = hasKeys(tools)
    ? (madeModelTools(tools) ?? (await modelTools(tools)))
    : undefined
  const responseFormat = output ? await output.responseFormat : undefined
  const retries = { maxRetries: options.maxRetries, signal }
  // The SDK's own check of the setting, before any call (its retry is made on a first failure).
  if (!Number.isInteger(retries.maxRetries) || retries.maxRetries < 0) {
    prepareRetries({ maxRetries: retries.maxRetries, abortSignal: signal() })
  }
  const added: ModelMessage[] = []
  for (let step = 1; ; step++) {
    // The first call's conversation is the caller's messages as they are (nothing changes them).
    const conversation = added.length === 0 ? messages : [...messages, ...added]
    const prompt =
      plainModelPrompt(system, conversation) ??
      (await toModelPrompt({ system, messages: conversation, supportedUrls, signal: signal() }))
    // Set field by field: spreads of optional fields cost more than the rest of the object.
    const call: LanguageModelV3CallOptions = { prompt }
    if (callSignal) call.abortSignal = callSignal
    if (definitions) {
      call.tools = definitions
      call.toolChoice = { type: 'auto' }
    }
    if (options.temperature !== undefined) call.temperature = options.temperature
    if (responseFormat) call.responseFormat = responseFormat
    const onDelta = options.onDelta
    const index = step - 1
    // Only opening the stream is retried: a retry after deltas went out would repeat them.
    let result: Awaited<ReturnType<typeof collectStream>>
    if (onDelta) {
      result = await collectStream({
        stream: (await withRetries(() => model.doStream(call), retries)).stream,
        step: index,
        onDelta,
      })
    } else {
      // Awaited here, the retry's closure made only on a failure: most calls never fail.
      try {
        result = await model.doGenerate(call)
      } catch (error) {
        result = await retryAfter(() => model.doGenerate(call), error, retries)
      }
    }
    const finishReason = result.finishReason.unified
    // The loops over the answer are in functions of their own: this one's frame is kept by
    // every run waiting on a model or a tool (a fan-out holds one per sub-agent), and each
    // loop here would add its iterator's registers to it.
    const { calls, text } = splitAnswer(result.content)
    // Tools run only on an answer that is complete; a cut-off one may hold a cut-off call.
    const outcomes: ToolOutcome[] =
      calls.length === 0
        ? []
        : finishReason === 'stop' || finishReason === 'tool-calls'
          ? await runToolCalls({
              calls,
              tools,
              messages: conversation,
              signal: signal(),
              onReport: options.onToolCall,
              context: options.toolContext,
            })
          : unrunOutcomes(calls)
    if (onDelta) sendToolResults(onDelta, index, outcomes)
    pushResponseMessages(added, result.content, outcomes)
    options.onStep({ text, outcomes, finishReason })
    const goOn = calls.length > 0 && answeredAll(outcomes, calls.length) && step < options.maxSteps
    if (goOn) continue
    if (!output) return { text, finishReason, messages: added }
    if (!(finishReason === 'stop' || (finishReason !== 'tool-calls' && text.length > 0))) {
      throw new NoOutputGeneratedError({ message: 'The run ended before a final answer.' })
    }
    const parsed = await output.parseCompleteOutput(
      { text },
      {
        response: {
          id: result.response?.id ?? generateId(),
          timestamp: result.response?.timestamp ?? new Date(),
          modelId: result.response?.modelId ?? model.modelId,
        },
        usage: asLanguageModelUsage(result.usage),
        finishReason,
      },
    )
    return { text, finishReason, messages: added, output: parsed }
  }
}

/** The tool calls the model asked this side to run, and its text. */
function splitAnswer(content: LanguageModelV3Content[]): {
  calls: LanguageModelV3ToolCall[]
  text: string
} {
  const calls: LanguageModelV3ToolCall[] = []
  let text = ''
  for (const part of content) {
    if (part.type === 'tool-call' && !part.providerExecuted) calls.push(part)
    else if (part.type === 'text') text += part.text
  }
  return { calls, text }
}

/** The calls of a cut-off answer, kept in the conversation without being run. */
function unrunOutcomes(calls: LanguageModelV3ToolCall[]): ToolOutcome[] {
  return calls.map((part) => ({
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    input: part.input,
  }))
}

/** Streams each tool's result (or error) as a `tool-result` delta. */
function sendToolResults(
  onDelta: (delta: AgentDelta) => void,
  step: number,
  outcomes: ToolOutcome[],
): void {
  for (const outcome of outcomes) {
    if (outcome.modelOutput === undefined && outcome.error === undefined) continue
    onDelta({
      type: 'tool-result',
      step,
      toolCallId: outcome.toolCallId,
      toolName: outcome.toolName,
      output: outcome.error === undefined ? outcome.output : { error: outcome.error },
    })
  }
}

/** True when every one of the `calls` calls has an answer for the model. */
function answeredAll(outcomes: ToolOutcome[], calls: number): boolean {
  let answered = 0
  for (const outcome of outcomes) if (outcome.modelOutput !== undefined) answered++
  return answered === calls
}

function hasKeys(record: object): boolean {
  for (const _ in record) return true
  return false
}

/** Adds the assistant message of one call, and the tool message with its tools' results. */
function pushResponseMessages(
  added: ModelMessage[],
  content: LanguageModelV3Content[],
  outcomes: ToolOutcome[],
): void {
  const byId =
    outcomes.length === 0
      ? undefined
      : new Map(outcomes.map((outcome) => [outcome.toolCallId, outcome]))
  const assistant: Exclude<AssistantContent, string> = []
  for (const part of content) {
    const providerOptions = 'providerMetadata' in part ? part.providerMetadata : undefined
    const extra = providerOptions ? { providerOptions } : {}
    if (part.type === 'text' && part.text.length > 0) {
      assistant.push({ type: 'text', text: part.text, ...extra })
    } else if (part.type === 'reasoning') {
      assistant.push({ type: 'reasoning', text: part.text, ...extra })
    } else if (part.type === 'file') {
      assistant.push({ type: 'file', data: part.data, mediaType: part.mediaType, ...extra })
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      const input = byId?.get(part.toolCallId)?.input
      assistant.push({
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        // A call whose input did not parse is kept with empty input, as the SDK does.
        input: typeof input === 'object' && input !== null ? input : {},
        ...extra,
      })
    }
  }
  const results: ToolContent = []
  for (const outcome of outcomes) {
    if (!outcome.modelOutput) continue
    results.push({
      type: 'tool-result',
      toolCallId: outcome.toolCallId,
      toolName: outcome.toolName,
      output: outcome.modelOutput,
    })
  }
  if (assistant.length > 0) added.push({ role: 'assistant', content: assistant })
  if (results.length > 0) added.push({ role: 'tool', content: results })
}

/**
 * The call, retried as the AI SDK retries it (`prepareRetries`: retryable provider errors,
 * exponential back-off, `RetryError` after the last) only once it failed: the retry wrapper's
 * async layer and closures are made for a call that needs them, not for every call.
 */
function withRetries<T>(attempt: () => PromiseLike<T>, retries: Retries): Promise<T> {
  try {
    return Promise.resolve(attempt()).then(undefined, (error) =>
      retryAfter(attempt, error, retries),
    )
  } catch (error) {
    return retryAfter(attempt, error, retries)
  }
}

type Retries = { maxRetries: number; signal: () => AbortSignal }

/** The SDK's retry of `attempt` after its first failure, which it sees as its own first attempt's. */
function retryAfter<T>(
  attempt: () => PromiseLike<T>,
  error: unknown,
  retries: Retries,
): Promise<T> {
  let failed = false
  return Promise.resolve(
    prepareRetries({ maxRetries: retries.maxRetries, abortSignal: retries.signal() }).retry(() => {
      if (failed) return attempt()
      failed = true
      throw error
    }),
  )
}
