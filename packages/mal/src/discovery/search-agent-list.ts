import { Agent, type AgentInput } from '@baton/core'
import { type AgentMatch, type AgentQuery, TRUST_TIERS } from './discovery-types'
import { scoreText } from './score-text'

/**
 * Whether `tier` is `minimum` or above it (an unknown tier is below every other).
 *
 * @example
 * meetsTrustTier('high', 'medium') // true
 */
export function meetsTrustTier(tier: string, minimum: string): boolean {
  const rank = (name: string) => TRUST_TIERS.indexOf(name as (typeof TRUST_TIERS)[number])
  return rank(tier) >= rank(minimum)
}

/**
 * Ranks a list of agents for a query: name counts most, then capabilities, then the
 * description and card, then the examples. Agents that match no term are left out; ties go
 * by name, then wallet, so a result is the same every time.
 *
 * @example
 * searchAgentList(agents, { query: 'sql review', limit: 5 })[0]?.wallet
 */
export function searchAgentList(
  agents: readonly (Agent | AgentInput)[],
  query: AgentQuery,
): AgentMatch[] {
  const matches: AgentMatch[] = []
  for (const input of agents) {
    const agent = Agent.parse(input)
    if (query.capability && !agent.capabilities.includes(query.capability)) continue
    if (query.type && agent.type !== query.type) continue
    if (query.trustTier && !meetsTrustTier(agent.agentCard.trustTier, query.trustTier)) continue
    const score = scoreText(query.query, [
      { text: `${agent.name} ${agent.id}`, weight: 4 },
      { text: agent.capabilities.join(' '), weight: 3 },
      {
        text: `${agent.description} ${agent.agentCard.tagline} ${agent.agentCard.capabilityDescription}`,
        weight: 2,
      },
      { text: agent.agentCard.examples.join(' '), weight: 1 },
    ])
    if (score === 0) continue
    matches.push({
      wallet: agent.wallet,
      name: agent.name,
      description: agent.description,
      capabilities: [...agent.capabilities],
      score,
    })
  }
  matches.sort(
    (a, b) => b.score - a.score || a.name.localeCompare(b.name) || a.wallet.localeCompare(b.wallet),
  )
  return matches.slice(0, query.limit)
}
