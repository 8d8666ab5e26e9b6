import type { ToolMatch, ToolQuery } from './discovery-types'
import { scoreText } from './score-text'

/**
 * Ranks tools (name and description, as the AI SDK's tools carry them) for a query.
 *
 * @example
 * searchToolSet({ fetch_page: { description: 'Fetch a web page' } }, { query: 'web', limit: 3 })
 * // [{ name: 'fetch_page', description: 'Fetch a web page', score: 0.5 }]
 */
export function searchToolSet(
  tools: Readonly<Record<string, { description?: string | undefined }>>,
  query: ToolQuery,
): ToolMatch[] {
  const matches: ToolMatch[] = []
  for (const [name, tool] of Object.entries(tools)) {
    const description = tool.description ?? ''
    const score = scoreText(query.query, [
      { text: name.replace(/[_.-]/g, ' '), weight: 2 },
      { text: description, weight: 1 },
    ])
    if (score > 0) matches.push({ name, description, score })
  }
  matches.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
  return matches.slice(0, query.limit)
}
