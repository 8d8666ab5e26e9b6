import { environment, perTurn } from '../environment/per-turn'
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

// Seven environment reads cost ~1.3 µs here, more than the rest of a run's look-up: read once
// per turn of the event loop, so a variable changed late counts from the next turn on.
const providerVariables = perTurn(() => {
  const env = environment()
  let key = ''
  for (const name of VARIABLES) key += `${env?.[name] ?? ''}\u0000`
  return key
})

/**
 * The model registry of the built-in providers configured from `process.env`, made once per
 * host rather than once per run (building one creates every provider client), and made again
 * only when one of the provider variables changes (seen from the next turn of the event loop
 * after the change).
 *
 * @example
 * const model = defaultModelRegistry().languageModel('offline:default')
 */
export function defaultModelRegistry(): ModelRegistry {
  const key = providerVariables()
  if (cached?.key !== key) cached = { key, registry: createModelRegistry() }
  return cached.registry
}
