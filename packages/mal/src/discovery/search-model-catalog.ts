import { defaultPriceTable, findPrice, type PriceTable } from '@baton/core'
import type { ModelMatch, ModelQuery } from './discovery-types'
import { type CatalogModel, catalogFor } from './model-catalog'
import { scoreText } from './score-text'

export type ModelCatalogSource = {
  /** The providers a run can call (its model registry's); other models are not found. */
  providers: readonly string[]
  prices?: Readonly<PriceTable>
  catalog?: readonly CatalogModel[]
}

/**
 * Finds models by capability, provider, price and free text, over the price table of the
 * run's model registry. With a query, the most relevant come first; otherwise (and on ties)
 * the cheapest.
 *
 * @example
 * searchModelCatalog({ providers: ['openai'] }, { capability: 'reasoning', limit: 3 })
 */
export function searchModelCatalog(source: ModelCatalogSource, query: ModelQuery): ModelMatch[] {
  const prices = source.prices ?? defaultPriceTable
  const providers = new Set(source.providers)
  const matches: ModelMatch[] = []
  for (const entry of catalogFor(prices, source.catalog)) {
    const provider = entry.model.split(':')[0]!
    if (!providers.has(provider)) continue
    if (query.provider && provider !== query.provider) continue
    if (query.capability && !entry.capabilities.includes(query.capability)) continue
    const price = findPrice(entry.model, prices)
    if (query.maxOutputPerMTok !== undefined && price.outputPerMTok > query.maxOutputPerMTok) {
      continue
    }
    let score = 1
    if (query.query?.trim()) {
      score = scoreText(query.query, [
        { text: entry.model.replace(/[:._-]/g, ' '), weight: 2 },
        { text: `${entry.capabilities.join(' ')} ${entry.description ?? ''}`, weight: 2 },
      ])
      if (score === 0) continue
    }
    matches.push({
      model: entry.model,
      provider,
      capabilities: [...entry.capabilities],
      price: { inputPerMTok: price.inputPerMTok, outputPerMTok: price.outputPerMTok },
      score,
    })
  }
  const cost = (match: ModelMatch) => match.price.inputPerMTok + match.price.outputPerMTok
  matches.sort((a, b) => b.score - a.score || cost(a) - cost(b) || a.model.localeCompare(b.model))
  return matches.slice(0, query.limit)
}
