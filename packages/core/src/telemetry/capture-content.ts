import { environment, perTurn } from '../environment/per-turn'

/**
 * Whether spans may carry prompts, completions, tool arguments and results: only when
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, as the GenAI conventions ask
 * (they can hold personal data). Read once per turn of the event loop, by the first recording
 * span of that turn, so a process may turn it on late (it holds from the next turn on) without
 * every span of a busy turn reading the environment again.
 *
 * @example
 * if (capturesMessageContent()) span.setAttribute('gen_ai.input.messages', JSON.stringify(messages))
 */
export const capturesMessageContent: () => boolean = perTurn(
  () => environment()?.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true',
)
