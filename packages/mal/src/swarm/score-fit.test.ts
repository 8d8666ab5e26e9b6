import { describe, expect, it } from 'vitest'
import { makeAgent } from './__fixtures__/agents'
import { scoreFit } from './score-fit'

describe('scoreFit', () => {
  it('counts capabilities double and card text once, ignoring case, plurals and stop words', () => {
    const agent = makeAgent({
      id: 'auditor',
      capabilities: ['Code-Review'],
      agentCard: { capabilityDescription: 'Audits dependencies for the team' },
      config: { tags: ['security'] },
    })
    expect(scoreFit('Review the codes', agent)).toBe(4)
    expect(scoreFit('audit a dependency for security', agent)).toBe(2)
    expect(scoreFit('the and of', agent)).toBe(0)
  })
})
