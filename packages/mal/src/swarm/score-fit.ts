import type { Agent } from '@baton/core'

const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in into is it its of on or our that the their this to was we were will with you your'.split(
    ' ',
  ),
)

/** Lowercase word tokens, without stop words, with a plural `s` dropped. */
function tokenize(text: string): Set<string> {
  const tokens = new Set<string>()
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue
    tokens.add(
      word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word,
    )
  }
  return tokens
}

/**
 * How well an agent fits a task: the number of distinct task words found in the agent's
 * capabilities, description and card (capability description, tagline, examples).
 * Capabilities count double, since they are what the agent claims to do.
 *
 * @example
 * scoreFit('review this TypeScript code', agent) // 4 when agent.capabilities is ['code-review']
 */
export function scoreFit(task: string, agent: Agent): number {
  const wanted = tokenize(task)
  const claimed = tokenize(agent.capabilities.join(' '))
  const described = tokenize(
    [
      agent.name,
      agent.description,
      agent.agentCard.capabilityDescription,
      agent.agentCard.tagline,
      ...agent.agentCard.examples,
      ...tags(agent),
    ].join(' '),
  )
  let score = 0
  for (const token of wanted) {
    if (claimed.has(token)) score += 2
    else if (described.has(token)) score += 1
  }
  return score
}

function tags(agent: Agent): string[] {
  const value = agent.config.tags
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : []
}
