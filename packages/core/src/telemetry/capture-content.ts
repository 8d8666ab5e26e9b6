/**
 * Whether spans may carry prompts, completions, tool arguments and results: only when
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, as the GenAI conventions ask
 * (they can hold personal data). Read on each recording span, so a process may turn it on late.
 *
 * @example
 * if (capturesMessageContent()) span.setAttribute('gen_ai.input.messages', JSON.stringify(messages))
 */
export function capturesMessageContent(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env
  return env?.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true'
}
