/** One field a text search reads, and how much a match in it counts. */
export type WeightedField = { text: string; weight: number }

const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'for', 'to', 'in', 'on', 'or', 'with'])

/**
 * The words of a text, lowercased, without short stop words.
 *
 * @example
 * termsOf('Review the SQL migrations') // ['review', 'sql', 'migrations']
 */
export function termsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return words.filter((word) => !STOP_WORDS.has(word))
}

/**
 * Relevance of `fields` to `query`, from 0 (no term found) to 1 (every term found in the
 * heaviest field). A term matches a word it equals or, from three letters on, begins
 * (`migrat` finds `migrations`); each term counts once, at the heaviest field it is in.
 *
 * @example
 * scoreText('sql review', [{ text: 'SQL reviewer', weight: 3 }]) // 1
 */
export function scoreText(query: string, fields: readonly WeightedField[]): number {
  const terms = [...new Set(termsOf(query))]
  if (terms.length === 0) return 0
  const heaviest = Math.max(...fields.map((field) => field.weight), 1)
  const indexed = fields.map((field) => ({ words: termsOf(field.text), weight: field.weight }))
  let total = 0
  for (const term of terms) {
    let best = 0
    for (const field of indexed) {
      if (field.weight <= best) continue
      const found = field.words.some(
        (word) => word === term || (term.length >= 3 && word.startsWith(term)),
      )
      if (found) best = field.weight
    }
    total += best
  }
  return Math.round((total / (terms.length * heaviest)) * 10_000) / 10_000
}
