import { roundUsd } from '../money/usd-units'
import type { ModelPrice, PriceTable } from './types'

/**
 * Public list prices in USD per million tokens (input / output) for common models, and a
 * nominal price for `offline:*` so spend is visible in demos and tests. Local Ollama models
 * cost nothing. Anything not listed is priced at 0.
 */
export const defaultPriceTable: Readonly<PriceTable> = Object.freeze({
  'offline:*': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'ollama:*': { inputPerMTok: 0, outputPerMTok: 0 },
  'openai:gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'openai:gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'openai:gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'openai:gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'openai:gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'openai:o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'openai:o3-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'openai:gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'openai:gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'openai:gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'anthropic:claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'anthropic:claude-3-7-sonnet-latest': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic:claude-sonnet-4-0': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic:claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic:claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'anthropic:claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
} satisfies PriceTable)

/**
 * The price of `ref` in `table`: the exact `provider:model-id` entry, else `provider:*`,
 * else free.
 *
 * @example
 * findPrice('offline:default') // { inputPerMTok: 0.1, outputPerMTok: 0.4 }
 */
export function findPrice(
  ref: string,
  table: Readonly<PriceTable> = defaultPriceTable,
): ModelPrice {
  const exact = table[ref]
  if (exact) return exact
  // A frozen table (the default one, a model registry's) cannot change: what a ref falls back
  // to is kept. Asked of the kept ones first: `Object.isFrozen` reads every property's flags.
  let known = fallbacks.get(table)
  if (!known && Object.isFrozen(table)) {
    known = new Map()
    fallbacks.set(table, known)
  }
  const kept = known?.get(ref)
  if (kept) return kept
  const provider = ref.slice(0, Math.max(0, ref.indexOf(':')))
  const price = table[`${provider}:*`] ?? FREE
  known?.set(ref, price)
  return price
}

const FREE: ModelPrice = Object.freeze({ inputPerMTok: 0, outputPerMTok: 0 })
const fallbacks = new WeakMap<object, Map<string, ModelPrice>>()

/**
 * Turns the tokens of one or more model calls into USD through a price table.
 *
 * @example
 * priceUsage('openai:gpt-4o-mini', { inputTokens: 1000, outputTokens: 500 }) // 0.00045
 */
export function priceUsage(
  ref: string,
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined },
  table: Readonly<PriceTable> = defaultPriceTable,
): number {
  const price = findPrice(ref, table)
  const input = Math.max(0, usage.inputTokens ?? 0)
  const output = Math.max(0, usage.outputTokens ?? 0)
  const cost = (input * price.inputPerMTok + output * price.outputPerMTok) / 1_000_000
  // Rounded as budgets book money, so a price and its charge never differ by float noise.
  return Number.isFinite(cost) ? roundUsd(cost) : 0
}
