import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { createOllama } from 'ollama-ai-provider-v2'
import { createOfflineModel } from './offline/create-offline-model'

export type ModelEnvironment = {
  BATON_OPENAI_BASE_URL?: string | undefined
  BATON_OPENAI_API_KEY?: string | undefined
  OPENAI_API_KEY?: string | undefined
  ANTHROPIC_API_KEY?: string | undefined
  OLLAMA_BASE_URL?: string | undefined
}

type BuiltinProvider = {
  /** The environment variable that must be set for the provider to work. */
  variable?: keyof ModelEnvironment
  create(env: ModelEnvironment): ((modelId: string) => LanguageModelV3) | undefined
}

/** The providers every registry knows, and how the environment configures each. */
export const builtinProviders: Readonly<Record<string, BuiltinProvider>> = {
  offline: { create: () => createOfflineModel },
  'openai-compatible': {
    variable: 'BATON_OPENAI_BASE_URL',
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
    create: (env) => {
      if (!env.OPENAI_API_KEY) return undefined
      const provider = createOpenAI({ apiKey: env.OPENAI_API_KEY })
      return (modelId) => provider.languageModel(modelId)
    },
  },
  anthropic: {
    variable: 'ANTHROPIC_API_KEY',
    create: (env) => {
      if (!env.ANTHROPIC_API_KEY) return undefined
      const provider = createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })
      return (modelId) => provider.languageModel(modelId)
    },
  },
  ollama: {
    create: (env) => {
      const provider = createOllama({
        baseURL: env.OLLAMA_BASE_URL || 'http://127.0.0.1:11434/api',
      })
      return (modelId) => provider.languageModel(modelId)
    },
  },
}
