import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { prepareRetries } from 'ai/internal'
import { toModelError, toStreamError } from './to-model-error'

export type ProviderCallMiddlewareOptions = {
  /** The provider's name in model references (`openai`, `anthropic`...). */
  provider: string
  /** The variable that holds its key, named when the provider refuses it. */
  variable?: string | undefined
  /** Values that must never appear in an error. */
  secrets: readonly string[]
  /** Retries of a retryable failure (429, 5xx, 408, 409, no answer). */
  maxRetries: number
}

/**
 * The one place every network provider's call is retried and its failure typed. Retries are
 * the AI SDK's own (`maxRetries`, exponential backoff from 2 s, `Retry-After` /
 * `retry-after-ms` honoured below a minute, an abort stops the wait); what is left after them
 * becomes a Baton error through `toModelError`. A streamed call is retried until the provider
 * answers with a stream; a stream that fails later is not replayed, and its error part becomes
 * a `ModelUnavailableError` (`details.midStream`).
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: providerCallMiddleware({ provider: 'openai', variable: 'OPENAI_API_KEY', secrets: [key], maxRetries: 2 }) })
 */
export function providerCallMiddleware(
  options: ProviderCallMiddlewareOptions,
): LanguageModelV3Middleware {
  const { provider, variable, secrets, maxRetries } = options
  const context = (modelId: string) => ({
    ref: `${provider}:${modelId}`,
    provider,
    variable,
    secrets,
  })
  const call = async <T>(
    modelId: string,
    signal: AbortSignal | undefined,
    run: () => PromiseLike<T>,
  ) => {
    const { retry } = prepareRetries({ maxRetries, abortSignal: signal })
    try {
      return await retry(async () => await run())
    } catch (error) {
      throw toModelError(error, context(modelId))
    }
  }
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ doGenerate, params, model }) =>
      call(model.modelId, params.abortSignal, doGenerate),
    async wrapStream({ doStream, params, model }) {
      const result = await call(model.modelId, params.abortSignal, doStream)
      const typed = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          controller.enqueue(
            part.type === 'error'
              ? { ...part, error: toStreamError(part.error, context(model.modelId)) }
              : part,
          )
        },
      })
      return { ...result, stream: result.stream.pipeThrough(typed) }
    },
  }
}
