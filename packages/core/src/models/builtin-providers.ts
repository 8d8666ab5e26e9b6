import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { wrapLanguageModel } from 'ai'
import { createOllama } from 'ollama-ai-provider-v2'
import { createOfflineModel } from './offline/create-offline-model'
import { ollamaCallOptions } from './ollama-call-options'

export type ModelEnvironment = {
  BATON_OPENAI_BASE_URL?: string | undefined
  BATON_OPENAI_API_KEY?: string | undefined
  OPENAI_API_KEY?: string | undefined
  OPENAI_BASE_URL?: string | undefined
  ANTHROPIC_API_KEY?: string | undefined
  ANTHROPIC_BASE_URL?: string | undefined
  OLLAMA_BASE_URL?: string | undefined
}

/** The variables that hold keys: their values are removed from every provider error. */
export const KEY_VARIABLES = [
  'BATON_OPENAI_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
] as const satisfies readonly (keyof ModelEnvironment)[]

type BuiltinProvider = {
  /** The environment variable that must be set for the provider to work. */
  variable?: keyof ModelEnvironment
  /** The variable of the key it sends, named when the provider refuses it. */
  keyVariable?: keyof ModelEnvironment
  /** It calls a server: its calls are retried and their failures typed. */
  network: boolean
  create(env: ModelEnvironment): ((modelId: string) => LanguageModelV3) | undefined
}

/** The providers every registry knows, and how the environment configures each. */
export const builtinProviders: Readonly<Record<string, BuiltinProvider>> = {
  offline: { network: false, create: () => createOfflineModel },
  'openai-compatible': {
    variable: 'BATON_OPENAI_BASE_URL',
    keyVariable: 'BATON_OPENAI_API_KEY',
    network: true,
    create: (env) => {
      if (!env.BATON_OPENAI_BASE_URL) return undefined
      const provider = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: env.BATON_OPENAI_BASE_URL,
        ...(env.BATON_OPENAI_API_KEY ? { apiKey: env.BATON_OPENAI_API_KEY } : {}),
        includeUsage: true,
      })
      return (modelId) => provider.chatModel(modelId)
    },
  },
  openai: {
    variable: 'OPENAI_API_KEY',
    keyVariable: 'OPENAI_API_KEY',
    network: true,
    create: (env) => {
      if (!env.OPENAI_API_KEY) return undefined
      // The base URL is passed even when unset, so the SDK never reads process.env behind the
      // registry's back (a registry built from an explicit env uses only that env).
      const provider = createOpenAI({
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      })
      // The Responses API (`/responses`), the SDK's default for OpenAI models.
      return (modelId) => provider.languageModel(modelId)
    },
  },
  anthropic: {
    variable: 'ANTHROPIC_API_KEY',
    keyVariable: 'ANTHROPIC_API_KEY',
    network: true,
    create: (env) => {
      if (!env.ANTHROPIC_API_KEY) return undefined
      const provider = createAnthropic({
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1',
      })
      return (modelId) => provider.languageModel(modelId)
    },
  },
  ollama: {
    network: true,
    create: (env) => {
      const provider = createOllama({
        baseURL: env.OLLAMA_BASE_URL || 'http://127.0.0.1:11434/api',
      })
      return (modelId) =>
        wrapLanguageModel({ model: provider.languageModel(modelId), middleware: ollamaCallOptions })
    },
  },
}
