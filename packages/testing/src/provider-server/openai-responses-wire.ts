import { openAIChatWire } from './openai-chat-wire'
import { type AnswerTurn, chunksOf, halves, usageOf } from './turns'
import { CREATED, sse, type Wire, type WireContext } from './wire'

/** The output items of an answer, complete. */
function outputItems(turn: AnswerTurn, sequence: number) {
  if ('text' in turn) {
    return [
      {
        type: 'message',
        id: `msg_${sequence}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }],
      },
    ]
  }
  return turn.toolCalls.map((call, index) => ({
    type: 'function_call',
    id: `fc_${sequence}_${index}`,
    call_id: `call_${sequence}_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.input),
    status: 'completed',
  }))
}

function responseObject(turn: AnswerTurn, { model, sequence }: WireContext, done: boolean) {
  const usage = usageOf(turn)
  return {
    id: `resp_${sequence}`,
    object: 'response',
    created_at: CREATED,
    status: done ? 'completed' : 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: done ? outputItems(turn, sequence) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage:
      done && usage
        ? {
            input_tokens: usage.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.inputTokens + usage.outputTokens,
          }
        : null,
    user: null,
    metadata: {},
  }
}

/** The OpenAI Responses API (`POST /v1/responses`): the AI SDK's default for `openai:` models. */
export const openAIResponsesWire: Wire = {
  api: 'openai-responses',
  streamContentType: 'text/event-stream',
  json: (turn, context) => responseObject(turn, context, true),
  stream(turn, context) {
    let number = 0
    // Every event names its type twice (the SSE `event:` line and `type`) and is numbered.
    const event = (type: string, data: Record<string, unknown>) =>
      sse({ type, sequence_number: number++, ...data }, type)
    const events = [
      event('response.created', { response: responseObject(turn, context, false) }),
      event('response.in_progress', { response: responseObject(turn, context, false) }),
    ]
    outputItems(turn, context.sequence).forEach((item, outputIndex) => {
      const base = { output_index: outputIndex }
      if (item.type === 'message' && 'text' in turn) {
        const itemId = item.id
        const part = { item_id: itemId, ...base, content_index: 0 }
        events.push(
          event('response.output_item.added', {
            ...base,
            item: { ...item, status: 'in_progress', content: [] },
          }),
          event('response.content_part.added', {
            ...part,
            part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
          }),
          ...chunksOf(turn).map((delta) =>
            event('response.output_text.delta', { ...part, delta, logprobs: [] }),
          ),
          event('response.output_text.done', { ...part, text: turn.text, logprobs: [] }),
          event('response.content_part.done', {
            ...part,
            part: { type: 'output_text', text: turn.text, annotations: [], logprobs: [] },
          }),
          event('response.output_item.done', { ...base, item }),
        )
      } else if (item.type === 'function_call' && 'arguments' in item) {
        events.push(
          event('response.output_item.added', {
            ...base,
            item: { ...item, arguments: '', status: 'in_progress' },
          }),
          ...halves(item.arguments).map((delta) =>
            event('response.function_call_arguments.delta', { item_id: item.id, ...base, delta }),
          ),
          event('response.function_call_arguments.done', {
            item_id: item.id,
            ...base,
            arguments: item.arguments,
          }),
          event('response.output_item.done', { ...base, item }),
        )
      }
    })
    events.push(event('response.completed', { response: responseObject(turn, context, true) }))
    return events
  },
  // The Responses API answers errors in the same body as Chat Completions.
  error: openAIChatWire.error,
}
