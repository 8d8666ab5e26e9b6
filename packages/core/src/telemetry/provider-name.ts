// Baton's provider prefixes and the `gen_ai.provider.name` values the conventions know them by.
const KNOWN: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  ollama: 'ollama',
  offline: 'baton.offline',
}

/**
 * The `gen_ai.provider.name` and `gen_ai.request.model` of a `provider:model-id` reference.
 *
 * @example
 * modelAttributes('anthropic:claude-sonnet-4') // { provider: 'anthropic', model: 'claude-sonnet-4' }
 */
export function modelAttributes(reference: string): { provider: string; model: string } {
  const colon = reference.indexOf(':')
  if (colon < 0) return { provider: '_OTHER', model: reference }
  const prefix = reference.slice(0, colon)
  return { provider: KNOWN[prefix] ?? prefix, model: reference.slice(colon + 1) }
}
