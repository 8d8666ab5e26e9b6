import { createModelRegistry } from './create-model-registry'
import type { ModelRegistry } from './types'

/** The variables the built-in providers read; the cached registry is rebuilt when one changes. */
const VARIABLES = [
  'BATON_OPENAI_BASE_URL',
  'BATON_OPENAI_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OLLAMA_BASE_URL',
] as const

let cached: { key: string; registry: ModelRegistry } | undefined

/**
 * The model registry of the built-in providers configured from `process.env`, made once per
 * host rather than once per run (building one creates every provider client), and made again
 * only when one of the provider variables changes.
 *
 * @example
 * const model = defaultModelRegistry().languageModel('offline:default')
 */
export function defaultModelRegistry(): ModelRegistry {
  let key = ''
  for (const name of VARIABLES) key += `${process.env[name] ?? ''}\u0000`
  if (cached?.key !== key) cached = { key, registry: createModelRegistry() }
  return cached.registry
}
