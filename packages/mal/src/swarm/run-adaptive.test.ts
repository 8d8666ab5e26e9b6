import { describe, expect, it } from 'vitest'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'
import type { SwarmEvent } from './types'

const agents = [
  makeAgent({ id: 'lead', type: 'orchestrator' }),
  makeAgent({ id: 'ana' }),
  makeAgent({ id: 'rex', type: 'reviewer' }),
]
const swarm = {
  id: 'team',
  name: 'Team',
  strategy: 'adaptive' as const,
  agents: [
    { agentId: 'lead', role: 'leader' as const },
    { agentId: 'ana', role: 'worker' as const },
    { agentId: 'rex', role: 'critic' as const },
  ],
}

describe('runSwarm (adaptive)', () => {
  it('runs the strategy the leader chose for the task, with the choice in the events', async () => {
    const events: SwarmEvent[] = []
    const runMember = scriptedRunMember((member, _prompt, options) => {
      if (options.kind === 'plan' && options.round === 1) {
        return '{"strategy": "competitive", "reason": "two independent takes are worth comparing"}'
      }
      if (options.kind === 'vote') return '{"winner": 0, "reasons": "clearer"}'
      return `${member.agentId}'s answer`
    })
    const result = await runSwarm(swarm, 'Explain the outage', {
      agents,
      runMember,
      onEvent: (event) => events.push(event),
    })
    expect(result.status).toBe('done')
    expect(result.chosen).toEqual({
      strategy: 'competitive',
      reason: 'two independent takes are worth comparing',
      by: 'lead',
    })
    expect(result.verdict?.winner).toBe('lead')
    const choice = events.find((event) => event.type === 'swarm-message' && event.kind === 'plan')
    expect(choice && 'content' in choice ? JSON.parse(choice.content) : undefined).toEqual({
      strategy: 'competitive',
      reason: 'two independent takes are worth comparing',
    })
  })

  it('falls back to specialist on no valid choice, and says so (default member, offline)', async () => {
    const result = await runSwarm(swarm, 'Review this code', { agents })
    expect(result.status).toBe('done')
    expect(result.chosen?.by).toBe('lead')
    if (result.chosen?.strategy === 'specialist') {
      expect(result.chosen.reason).toMatch(/no valid choice from lead/)
    }
    expect(result.output.length).toBeGreaterThan(0)
  })
})
