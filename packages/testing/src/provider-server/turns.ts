/** Tokens a fixture answer reports, in each provider's own usage fields. */
export type ReportedUsage = { inputTokens: number; outputTokens: number }

/** What the fixture answers to one request. */
export type Turn =
  /** A text answer; streamed in `chunks` (default: split after each space). */
  | { text: string; chunks?: string[]; usage?: ReportedUsage | null }
  /** The model asks for tools; `input` is sent in the provider's own argument format. */
  | {
      toolCalls: { name: string; input: Record<string, unknown> }[]
      usage?: ReportedUsage | null
    }
  /** An HTTP error in the provider's own error body, with these headers (`retry-after`...). */
  | { status: number; headers?: Record<string, string>; message?: string }
  /**
   * A stream (HTTP 200) that fails with the provider's in-stream error event after sending
   * `chunks` of text (none: the error is the first event). Anthropic only.
   */
  | { streamError: { type: string; message: string }; chunks?: string[] }

export type AnswerTurn = Exclude<Turn, { status: number } | { streamError: unknown }>
export type StreamErrorTurn = Extract<Turn, { streamError: unknown }>
export type ErrorTurn = Extract<Turn, { status: number }>

/** The usage a turn reports when it does not say: `null` means the answer reports none. */
export const DEFAULT_USAGE: ReportedUsage = { inputTokens: 100, outputTokens: 20 }

export function usageOf(turn: AnswerTurn): ReportedUsage | null {
  return turn.usage === undefined ? DEFAULT_USAGE : turn.usage
}

export function isError(turn: Turn): turn is ErrorTurn {
  return 'status' in turn
}

/** The pieces a text is streamed in. */
export function chunksOf(turn: Extract<Turn, { text: string }>): string[] {
  return turn.chunks ?? turn.text.split(/(?<= )/)
}

/** Splits a string in two, as providers split tool arguments across stream events. */
export function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2)
  return [text.slice(0, middle), text.slice(middle)]
}

/** The error `type` each provider gives a status in its body. */
export function errorKind(status: number): 'auth' | 'permission' | 'rate' | 'server' | 'request' {
  if (status === 401) return 'auth'
  if (status === 403) return 'permission'
  if (status === 429) return 'rate'
  if (status >= 500) return 'server'
  return 'request'
}
