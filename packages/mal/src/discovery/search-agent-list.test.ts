import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet, remoteWallet, reviewerWallet } from '../__fixtures__/agents'
import { scoreText } from './score-text'
import { meetsTrustTier, searchAgentList } from './search-agent-list'

const agents = [
  agentRecord({
    name: 'Risk Analyst',
    description: 'Scores credit risk of loan applications',
    capabilities: ['risk', 'credit'],
    agentCard: { trustTier: 'medium', examples: ['assess this mortgage'] },
  }),
  agentRecord({
    id: 'sql-reviewer',
    wallet: reviewerWallet,
    name: 'SQL Reviewer',
    type: 'reviewer',
    description: 'Reviews database migrations for locking problems',
    capabilities: ['sql', 'review'],
    agentCard: { trustTier: 'high' },
  }),
  agentRecord({
    id: 'copywriter',
    wallet: remoteWallet,
    name: 'Copywriter',
    description: 'Writes marketing copy',
    capabilities: ['writing'],
  }),
]

describe('searchAgentList', () => {
  it('ranks a name match above a description match', () => {
    const found = searchAgentList(agents, { query: 'sql review migrations', limit: 10 })
    expect(found.map((match) => match.wallet)).toEqual([reviewerWallet])
    expect(found[0]).toEqual({
      wallet: reviewerWallet,
      name: 'SQL Reviewer',
      description: 'Reviews database migrations for locking problems',
      capabilities: ['sql', 'review'],
      score: expect.any(Number),
    })
  })

  it('finds agents by their card examples and by word prefixes', () => {
    expect(searchAgentList(agents, { query: 'mortgage', limit: 5 })[0]?.wallet).toBe(analystWallet)
    expect(searchAgentList(agents, { query: 'migrat', limit: 5 })[0]?.wallet).toBe(reviewerWallet)
  })

  it('filters by capability, type and minimum trust tier, and keeps to the limit', () => {
    const query = 'reviews risk writes'
    expect(searchAgentList(agents, { query, capability: 'credit', limit: 5 })).toHaveLength(1)
    expect(searchAgentList(agents, { query, type: 'reviewer', limit: 5 })[0]?.wallet).toBe(
      reviewerWallet,
    )
    const trusted = searchAgentList(agents, { query, trustTier: 'medium', limit: 5 })
    expect(trusted.map((match) => match.wallet).sort()).toEqual([analystWallet, reviewerWallet])
    expect(searchAgentList(agents, { query, limit: 1 })).toHaveLength(1)
  })

  it('leaves out agents that match no term', () => {
    expect(searchAgentList(agents, { query: 'astronomy', limit: 5 })).toEqual([])
  })
})

describe('meetsTrustTier', () => {
  it('orders safe < low < medium < high < critical', () => {
    expect(meetsTrustTier('critical', 'high')).toBe(true)
    expect(meetsTrustTier('low', 'medium')).toBe(false)
    expect(meetsTrustTier('safe', 'safe')).toBe(true)
  })
})

describe('scoreText', () => {
  it('gives 1 when every term is in the heaviest field and 0 when none is', () => {
    expect(scoreText('sql review', [{ text: 'SQL reviewer', weight: 3 }])).toBe(1)
    expect(scoreText('sql', [{ text: 'poetry', weight: 3 }])).toBe(0)
  })
})
