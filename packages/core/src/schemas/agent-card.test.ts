import { describe, expect, it } from 'vitest'
import { issuesFor, pathsFor } from './__fixtures__/issues'
import { AgentCard } from './agent-card'

describe('AgentCard', () => {
  it('fills every field with its default', () => {
    expect(AgentCard.parse({})).toEqual({
      tagline: '',
      capabilityDescription: '',
      trustTier: 'low',
      canDelegate: false,
      a2aVersion: '0.3.0',
      examples: [],
    })
  })

  it('refuses an unknown trust tier, naming the field and the tiers', () => {
    expect(issuesFor(AgentCard, { trustTier: 'root' })).toEqual([
      {
        path: 'trustTier',
        message: 'Invalid option: expected one of "safe"|"low"|"medium"|"high"|"critical"',
      },
    ])
  })

  it('refuses a tagline over 200 characters, a non-boolean canDelegate and bad examples', () => {
    expect(
      pathsFor(AgentCard, { tagline: 'x'.repeat(201), canDelegate: 'yes', examples: ['ok', 1] }),
    ).toEqual(['tagline', 'canDelegate', 'examples[1]'])
  })
})
