import { chunksOf, errorKind, halves, usageOf } from './turns'
import { CREATED, sse, type Wire } from './wire'

const errorTypes = {
  auth: ['invalid_request_error', 'invalid_api_key'],
  permission: ['invalid_request_error', 'unsupported_country_region_territory'],
  rate: ['requests', 'rate_limit_exceeded'],
  server: ['server_error', null],
  request: ['invalid_request_error', null],
} as const

/** OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by OpenAI-compatible servers. */
export const openAIChatWire: Wire = {
  api: 'openai-chat',
  streamContentType: 'text/event-stream',
  json(turn, { model, sequence }) {
    const usage = usageOf(turn)
    const toolCalls =
      'toolCalls' in turn
        ? turn.toolCalls.map((call, index) => ({
            id: `call_${sequence}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          }))
        : undefined
    return {
      id: `chatcmpl-${sequence}`,
      object: 'chat.completion',
      created: CREATED,
      model,
      system_fingerprint: 'fp_fixture',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'text' in turn ? turn.text : null,
            refusal: null,
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      ...(usage ? { usage: chatUsage(usage) } : {}),
    }
  },
  stream(turn, { model, sequence, includeUsage }) {
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      sse({
        id: `chatcmpl-${sequence}`,
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        system_fingerprint: 'fp_fixture',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      })
    const events = [chunk({ role: 'assistant', content: '', refusal: null })]
    if ('text' in turn) {
      for (const piece of chunksOf(turn)) events.push(chunk({ content: piece }))
    } else {
      turn.toolCalls.forEach((call, index) => {
        const [first, second] = halves(JSON.stringify(call.input))
        const id = `call_${sequence}_${index}`
        events.push(
          chunk({
            tool_calls: [
              { index, id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          }),
          chunk({ tool_calls: [{ index, function: { arguments: first } }] }),
          chunk({ tool_calls: [{ index, function: { arguments: second } }] }),
        )
      })
    }
    events.push(chunk({}, 'text' in turn ? 'stop' : 'tool_calls'))
    const usage = usageOf(turn)
    // Usage comes in one last chunk with no choices, and only when the request asked for it.
    if (includeUsage && usage) {
      events.push(
        sse({
          id: `chatcmpl-${sequence}`,
          object: 'chat.completion.chunk',
          created: CREATED,
          model,
          choices: [],
          usage: chatUsage(usage),
        }),
      )
    }
    events.push('data: [DONE]\n\n')
    return events
  },
  error(status, message) {
    const [type, code] = errorTypes[errorKind(status)]
    return { error: { message, type, param: null, code } }
  },
}

function chatUsage(usage: { inputTokens: number; outputTokens: number }) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  }
}
