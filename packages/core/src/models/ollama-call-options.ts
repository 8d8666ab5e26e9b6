import type { LanguageModelV3CallOptions, LanguageModelV3Middleware } from '@ai-sdk/provider'

type OllamaOptions = Record<string, unknown>

/**
 * Ollama's `/api/chat` reads sampling settings only from its `options` object (`num_predict`,
 * `temperature`, `top_p`, `top_k`, `seed`, `stop`), and the Ollama provider sends the call's
 * settings at the top level of the body, where Ollama ignores them. Without this a budget's
 * cap on the answer (`maxOutputTokens`) never reached the model. Options the caller set in
 * `providerOptions.ollama.options` win.
 *
 * @example
 * const model = wrapLanguageModel({ model: ollama('llama3.2'), middleware: ollamaCallOptions })
 */
export const ollamaCallOptions: LanguageModelV3Middleware = {
  specificationVersion: 'v3',
  transformParams: async ({ params }) => {
    const settings: OllamaOptions = {
      ...defined('num_predict', params.maxOutputTokens),
      ...defined('temperature', params.temperature),
      ...defined('top_p', params.topP),
      ...defined('top_k', params.topK),
      ...defined('seed', params.seed),
      ...(params.stopSequences?.length ? { stop: params.stopSequences } : {}),
    }
    if (Object.keys(settings).length === 0) return params
    const ollama = (params.providerOptions?.ollama ?? {}) as { options?: OllamaOptions }
    return {
      ...params,
      providerOptions: {
        ...params.providerOptions,
        ollama: { ...ollama, options: { ...settings, ...ollama.options } },
      },
    } as LanguageModelV3CallOptions
  },
}

function defined(name: string, value: unknown): OllamaOptions {
  return value === undefined ? {} : { [name]: value }
}
