import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider'
import { capturesMessageContent } from './capture-content'
import type { ChatOutcome } from './chat-span'

/** What a streamed call told about itself, gathered as its parts pass. */
export type StreamedChatOutcome = {
  /** Sees one part of the stream (cheap: text is kept only when content capture is on). */
  observe(part: LanguageModelV3StreamPart): void
  /** The span's view of the call so far: finish reason, response ids and, captured, the answer. */
  outcome(): Pick<ChatOutcome, 'finishReason' | 'responseModel' | 'responseId' | 'content'>
}

/**
 * Gathers from a streamed call what its `chat` span records for a whole one (`doGenerate`):
 * the finish reason, the response's model and id, and — only with content capture on — the
 * answer's text, reasoning and tool calls, so a streamed call's span says what a generated
 * one's does.
 *
 * @example
 * const streamed = streamedChatOutcome({ capture: chat.capturesContent })
 * for (const part of parts) streamed.observe(part)
 * chat.finish({ ...charge, ...streamed.outcome() })
 */
export function streamedChatOutcome(
  options: {
    /** Keep the answer's content (default: whether content capture is on). */
    capture?: boolean
  } = {},
): StreamedChatOutcome {
  const capture = options.capture ?? capturesMessageContent()
  let text = ''
  let reasoning = ''
  const toolCalls: LanguageModelV3Content[] = []
  let finishReason: LanguageModelV3FinishReason | undefined
  let responseModel: string | undefined
  let responseId: string | undefined
  return {
    observe(part) {
      if (part.type === 'finish') finishReason = part.finishReason
      else if (part.type === 'response-metadata') {
        responseModel = part.modelId ?? responseModel
        responseId = part.id ?? responseId
      } else if (!capture) return
      else if (part.type === 'text-delta') text += part.delta
      else if (part.type === 'reasoning-delta') reasoning += part.delta
      else if (part.type === 'tool-call') toolCalls.push(part)
    },
    outcome() {
      const outcome: ReturnType<StreamedChatOutcome['outcome']> = {
        finishReason,
        responseModel,
        responseId,
      }
      // The answer is put together only when it is recorded.
      if (capture) {
        outcome.content = [
          ...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []),
          ...(text ? [{ type: 'text' as const, text }] : []),
          ...toolCalls,
        ]
      }
      return outcome
    },
  }
}
