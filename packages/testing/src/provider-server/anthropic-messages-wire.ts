import {
  type AnswerTurn,
  chunksOf,
  errorKind,
  halves,
  type StreamErrorTurn,
  usageOf,
} from './turns'
import { sse, type Wire, type WireContext } from './wire'

const errorTypes = {
  auth: 'authentication_error',
  permission: 'permission_error',
  rate: 'rate_limit_error',
  server: 'api_error',
  request: 'invalid_request_error',
} as const

function contentBlocks(turn: AnswerTurn, sequence: number) {
  if ('text' in turn) return [{ type: 'text', text: turn.text }]
  return turn.toolCalls.map((call, index) => ({
    type: 'tool_use',
    id: `toolu_${sequence}_${index}`,
    name: call.name,
    input: call.input,
  }))
}

/** Anthropic Messages (`POST /v1/messages`), answered whole or as its SSE event stream. */
export const anthropicMessagesWire: Wire = {
  api: 'anthropic-messages',
  streamContentType: 'text/event-stream',
  json(turn, { model, sequence }) {
    const usage = usageOf(turn)
    return {
      id: `msg_${sequence}`,
      type: 'message',
      role: 'assistant',
      model,
      content: contentBlocks(turn, sequence),
      stop_reason: 'text' in turn ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: usage?.inputTokens ?? 0,
        output_tokens: usage?.outputTokens ?? 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: 'standard',
      },
    }
  },
  stream(turn, { model, sequence }) {
    const usage = usageOf(turn)
    const event = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type)
    const events = [
      // The input tokens come first; the output tokens come with `message_delta` at the end.
      event('message_start', {
        message: {
          id: `msg_${sequence}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage?.inputTokens ?? 0,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      }),
    ]
    contentBlocks(turn, sequence).forEach((block, index) => {
      if (block.type === 'text' && 'text' in turn) {
        events.push(
          event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
          event('ping', {}),
          ...chunksOf(turn).map((text) =>
            event('content_block_delta', { index, delta: { type: 'text_delta', text } }),
          ),
        )
      } else {
        events.push(
          event('content_block_start', { index, content_block: { ...block, input: {} } }),
          ...halves(JSON.stringify((block as { input: unknown }).input)).map((partial_json) =>
            event('content_block_delta', {
              index,
              delta: { type: 'input_json_delta', partial_json },
            }),
          ),
        )
      }
      events.push(event('content_block_stop', { index }))
    })
    events.push(
      event('message_delta', {
        delta: { stop_reason: 'text' in turn ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: usage?.outputTokens ?? 0 },
      }),
      event('message_stop', {}),
    )
    return events
  },
  error(status, message) {
    return {
      type: 'error',
      error: { type: errorTypes[errorKind(status)], message },
      request_id: 'req_fixture',
    }
  },
}

/**
 * A stream that fails with Anthropic's `error` event (an `overloaded_error` is sent this way
 * with HTTP 200): first thing, or after some text.
 */
export function anthropicStreamError(turn: StreamErrorTurn, context: WireContext): string[] {
  const failure = sse({ type: 'error', error: turn.streamError }, 'error')
  if (!turn.chunks?.length) return [failure]
  const text = turn.chunks.join('')
  // The text before the failure, as any stream would send it, without its ending.
  const events = anthropicMessagesWire.stream({ text, chunks: turn.chunks }, context)
  const ending = events.findIndex((event) => event.startsWith('event: content_block_stop'))
  return [...events.slice(0, ending), failure]
}
