import type { AnswerTurn } from './turns'

/** The provider API a request was made to. */
export type Api = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'ollama-chat'

/** How one provider API writes answers and errors. */
export type Wire = {
  api: Api
  /** The whole answer of a non-streamed request. */
  json(turn: AnswerTurn, context: WireContext): unknown
  /** The streamed answer, already framed (SSE events or NDJSON lines). */
  stream(turn: AnswerTurn, context: WireContext): string[]
  streamContentType: string
  /** The provider's error body for a status. */
  error(status: number, message: string): unknown
}

export type WireContext = {
  /** The model id the request named. */
  model: string
  /** The request asked for usage in its stream (`stream_options.include_usage`). */
  includeUsage: boolean
  /** A number unique to this request, for ids. */
  sequence: number
}

/** One server-sent event; `event` is left out for APIs that send only `data:` lines. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`
}

export const CREATED = 1_767_225_600
