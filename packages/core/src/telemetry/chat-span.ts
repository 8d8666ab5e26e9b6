import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
} from '@ai-sdk/provider'
import { type Span, SpanKind } from '@opentelemetry/api'
import { capturesMessageContent } from './capture-content'
import { inputMessages, outputMessages } from './message-content'
import { modelAttributes } from './provider-name'
import { errorType, recordSpanFailure } from './record-span-failure'
import { emitTelemetry, hasTelemetryListeners } from './telemetry-listeners'
import { recordingTracer } from './tracer'

/** What a finished model call reports to its span. */
export type ChatOutcome = {
  inputTokens: number
  outputTokens: number
  costUsd: number
  finishReason?: LanguageModelV3FinishReason | undefined
  responseModel?: string | undefined
  responseId?: string | undefined
  /** The answer, recorded only when content capture is on. */
  content?: LanguageModelV3Content[]
}

/** A `chat` span in flight; exactly one of `finish` or `fail` ends it. */
export type ChatSpan = {
  finish(outcome: ChatOutcome): void
  fail(error: unknown): void
  /** Whether the span records (an SDK registered, the trace sampled): worth describing. */
  readonly records: boolean
  /** Whether it records prompts and completions (content capture on). */
  readonly capturesContent: boolean
}

/** The span of a call nobody records or listens to: its methods do nothing. */
export const IDLE_CHAT_SPAN: ChatSpan = {
  finish() {},
  fail() {},
  records: false,
  capturesContent: false,
}

/**
 * Starts the `chat {model}` span of one model call (CLIENT kind, a child of whatever span is
 * active: the agent's `invoke_agent`, or the workflow for a direct `models_call`) and feeds the
 * call's tokens and cost to metrics listeners when it ends. It is not made active: a model call
 * has no child spans. Without an SDK and without listeners it costs nothing (not even a no-op
 * span); a span its sampler drops records nothing.
 *
 * @example
 * const chat = startChatSpan({ model: 'openai:gpt-4o', call })
 * chat.finish({ inputTokens: 10, outputTokens: 5, costUsd: 0.0001 })
 */
export function startChatSpan(options: {
  /** The `provider:model-id` reference. */
  model: string
  call: LanguageModelV3CallOptions
  /** The wallet the call is charged to. */
  wallet?: string | undefined
}): ChatSpan {
  const tracer = recordingTracer()
  const listening = hasTelemetryListeners()
  // No SDK and no listener: nothing to name, time or start.
  if (!tracer && !listening) return IDLE_CHAT_SPAN
  const { provider, model } = modelAttributes(options.model)
  // The attributes a sampler may decide on are given at the start, as the conventions ask.
  const span = tracer?.startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': model,
    },
  })
  const recording = span?.isRecording() === true
  if (!recording) span?.end()
  if (!recording && !listening) return IDLE_CHAT_SPAN
  const started = listening ? performance.now() : 0
  const content = recording && capturesMessageContent()
  if (span && recording) describeCall(span, options.call, options.wallet, content)
  return {
    records: recording,
    capturesContent: content,
    finish(outcome) {
      if (listening) {
        emitTelemetry('modelCall', {
          provider,
          model,
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
          costUsd: outcome.costUsd,
          durationMs: performance.now() - started,
        })
      }
      if (!span || !recording) return
      span.setAttributes({
        'gen_ai.usage.input_tokens': outcome.inputTokens,
        'gen_ai.usage.output_tokens': outcome.outputTokens,
        'baton.cost_usd': outcome.costUsd,
      })
      if (outcome.finishReason) {
        span.setAttribute('gen_ai.response.finish_reasons', [outcome.finishReason.unified])
      }
      if (outcome.responseModel) span.setAttribute('gen_ai.response.model', outcome.responseModel)
      if (outcome.responseId) span.setAttribute('gen_ai.response.id', outcome.responseId)
      if (content && outcome.content) {
        span.setAttribute(
          'gen_ai.output.messages',
          outputMessages(outcome.content, outcome.finishReason?.unified ?? 'stop'),
        )
      }
      span.end()
    },
    fail(error) {
      if (listening) {
        emitTelemetry('modelCall', {
          provider,
          model,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          durationMs: performance.now() - started,
          errorType: errorType(error),
        })
      }
      if (!span || !recording) return
      recordSpanFailure(span, error)
      span.end()
    },
  }
}

function describeCall(
  span: Span,
  call: LanguageModelV3CallOptions,
  wallet: string | undefined,
  content: boolean,
): void {
  if (wallet) span.setAttribute('baton.wallet', wallet)
  if (call.maxOutputTokens !== undefined) {
    span.setAttribute('gen_ai.request.max_tokens', call.maxOutputTokens)
  }
  if (call.temperature !== undefined)
    span.setAttribute('gen_ai.request.temperature', call.temperature)
  if (!content) return
  const input = inputMessages(call.prompt)
  span.setAttribute('gen_ai.input.messages', input.messages)
  if (input.system) span.setAttribute('gen_ai.system_instructions', input.system)
}
