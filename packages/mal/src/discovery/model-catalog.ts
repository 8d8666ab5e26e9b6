import { defaultPriceTable, type PriceTable } from '@baton/core'

/** A model a run may be pointed at, with what it is good for. */
export type CatalogModel = { model: string; capabilities: string[]; description?: string }

/**
 * The models of the default price table and what each is known for. A model is only found
 * when its provider is configured in the run's model registry.
 */
export const defaultModelCatalog: readonly CatalogModel[] = Object.freeze([
  { model: 'offline:default', capabilities: ['text', 'offline', 'deterministic'] },
  { model: 'openai:gpt-4o', capabilities: ['text', 'vision', 'tools'] },
  { model: 'openai:gpt-4o-mini', capabilities: ['text', 'vision', 'tools', 'fast', 'cheap'] },
  { model: 'openai:gpt-4.1', capabilities: ['text', 'tools', 'long-context', 'code'] },
  { model: 'openai:gpt-4.1-mini', capabilities: ['text', 'tools', 'long-context', 'fast'] },
  { model: 'openai:gpt-4.1-nano', capabilities: ['text', 'fast', 'cheap'] },
  { model: 'openai:o4-mini', capabilities: ['text', 'reasoning', 'tools', 'code'] },
  { model: 'openai:o3-mini', capabilities: ['text', 'reasoning', 'code'] },
  { model: 'openai:gpt-5', capabilities: ['text', 'reasoning', 'tools', 'code', 'vision'] },
  { model: 'openai:gpt-5-mini', capabilities: ['text', 'reasoning', 'tools', 'fast'] },
  { model: 'openai:gpt-5-nano', capabilities: ['text', 'fast', 'cheap'] },
  { model: 'anthropic:claude-3-5-haiku-latest', capabilities: ['text', 'tools', 'fast'] },
  { model: 'anthropic:claude-3-7-sonnet-latest', capabilities: ['text', 'tools', 'code'] },
  { model: 'anthropic:claude-sonnet-4-0', capabilities: ['text', 'tools', 'code', 'reasoning'] },
  { model: 'anthropic:claude-sonnet-4-5', capabilities: ['text', 'tools', 'code', 'reasoning'] },
  { model: 'anthropic:claude-haiku-4-5', capabilities: ['text', 'tools', 'fast', 'cheap'] },
  { model: 'anthropic:claude-opus-4-1', capabilities: ['text', 'tools', 'code', 'reasoning'] },
])

/**
 * The catalog entries whose prices `table` lists (exactly or through `provider:*`).
 *
 * @example
 * catalogFor(defaultPriceTable).length // every model above
 */
export function catalogFor(
  table: Readonly<PriceTable> = defaultPriceTable,
  catalog: readonly CatalogModel[] = defaultModelCatalog,
): CatalogModel[] {
  const listed = catalog.filter((entry) => {
    const provider = entry.model.split(':')[0]
    return entry.model in table || `${provider}:*` in table
  })
  const known = new Set(listed.map((entry) => entry.model))
  // Exact entries of the table the catalog does not describe are still found, by name.
  for (const model of Object.keys(table)) {
    if (!model.endsWith(':*') && !known.has(model)) listed.push({ model, capabilities: ['text'] })
  }
  return listed
}
