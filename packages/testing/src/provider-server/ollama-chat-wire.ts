import { type AnswerTurn, chunksOf, type ReportedUsage, usageOf } from './turns'
import { CREATED, type Wire } from './wire'

const createdAt = new Date(CREATED * 1000).toISOString()

/** The closing object of an Ollama answer: `done`, its reason, timings and token counts. */
function done(model: string, usage: ReportedUsage | null, message: Record<string, unknown>) {
  return {
    model,
    created_at: createdAt,
    message,
    done: true,
    // Ollama says "stop" even when the message calls tools.
    done_reason: 'stop',
    total_duration: 1_200_000,
    load_duration: 100_000,
    prompt_eval_duration: 300_000,
    eval_duration: 800_000,
    ...(usage ? { prompt_eval_count: usage.inputTokens, eval_count: usage.outputTokens } : {}),
  }
}

function toolCalls(turn: AnswerTurn) {
  // Ollama sends arguments as an object, not a JSON string.
  return 'toolCalls' in turn
    ? turn.toolCalls.map((call) => ({ function: { name: call.name, arguments: call.input } }))
    : undefined
}

/** Ollama's `POST /api/chat`: one JSON object, or NDJSON lines ending with `done: true`. */
export const ollamaChatWire: Wire = {
  api: 'ollama-chat',
  streamContentType: 'application/x-ndjson',
  json(turn, { model }) {
    const calls = toolCalls(turn)
    return done(model, usageOf(turn), {
      role: 'assistant',
      content: 'text' in turn ? turn.text : '',
      ...(calls ? { tool_calls: calls } : {}),
    })
  },
  stream(turn, { model }) {
    const line = (value: unknown) => `${JSON.stringify(value)}\n`
    const lines: string[] = []
    if ('text' in turn) {
      for (const content of chunksOf(turn)) {
        lines.push(
          line({
            model,
            created_at: createdAt,
            message: { role: 'assistant', content },
            done: false,
          }),
        )
      }
    } else {
      lines.push(
        line({
          model,
          created_at: createdAt,
          message: { role: 'assistant', content: '', tool_calls: toolCalls(turn) },
          done: false,
        }),
      )
    }
    lines.push(line(done(model, usageOf(turn), { role: 'assistant', content: '' })))
    return lines
  },
  // Ollama's own error body is a bare string under `error`.
  error: (_status, message) => ({ error: message }),
}
