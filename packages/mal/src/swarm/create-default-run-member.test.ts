import { describe, expect, it } from 'vitest'
import { makeAgent } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = ['ana', 'ben', 'cleo'].map((id) => makeAgent({ id }))
const council = {
  id: 'council',
  name: 'Council',
  strategy: 'democratic' as const,
  consensusThreshold: 0.5,
  agents: [
    { agentId: 'ana', role: 'worker' as const, weight: 1 },
    { agentId: 'ben', role: 'worker' as const, weight: 1 },
    { agentId: 'cleo', role: 'worker' as const, weight: 1 },
  ],
}

describe('createDefaultRunMember', () => {
  it('asks runAgent for a structured vote, so members on the offline model really vote', async () => {
    const result = await runSwarm(council, 'Pick a launch date', { agents })
    expect(result.status).toBe('done')
    const votes = result.rounds[0]!.messages.filter((message) => message.kind === 'vote')
    expect(votes).toHaveLength(3)
    for (const vote of votes) expect(vote.content).toMatch(/^proposal \d+$/)
    expect(result.rounds[0]!.tally?.abstained).toBe(0)
    expect(result.consensusReached).toBe(true)
  })

  it('sums usage without float noise', async () => {
    const result = await runSwarm(council, 'Pick a launch date', { agents })
    const twelveDigits = (value: number) => Math.round(value * 1e12) / 1e12
    expect(result.usage.costUsd).toBe(twelveDigits(result.usage.costUsd))
    for (const usage of Object.values(result.usageByAgent)) {
      expect(usage.costUsd).toBe(twelveDigits(usage.costUsd))
    }
    expect(result.usage.calls).toBe(6)
  })
})
