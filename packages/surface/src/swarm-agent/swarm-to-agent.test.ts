import { Agent, BatonError, isWallet } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { analyst, critic, makeAgent, makeSwarm } from '../__fixtures__/agents'
import { InvalidSwarmIdError } from './invalid-swarm-id-error'
import { isSwarmAgentId, isValidSwarmId, swarmAgentId, swarmIdFromAgentId } from './swarm-agent-id'
import { swarmToAgent } from './swarm-to-agent'

describe('swarmToAgent', () => {
  it('turns a swarm into an orchestrator agent that can delegate', () => {
    const agent = swarmToAgent(makeSwarm(), { agents: [analyst, critic] })
    expect(agent.id).toBe('swarm_research')
    expect(agent.name).toBe('Research Swarm')
    expect(agent.type).toBe('orchestrator')
    expect(agent.agentCard.canDelegate).toBe(true)
    expect(agent.config).toMatchObject({ swarmId: 'research', strategy: 'round-robin' })
  })

  it('describes a swarm without a description by its strategy and members, counted in words', () => {
    const two = swarmToAgent(makeSwarm({ description: undefined }), { agents: [analyst, critic] })
    expect(two.description).toBe('A round-robin swarm of 2 agents.')
    const one = swarmToAgent(
      makeSwarm({ description: undefined, agents: [{ agentId: 'analyst', role: 'worker' }] }),
      { agents: [analyst] },
    )
    expect(one.description).toBe('A round-robin swarm of 1 agent.')
  })

  it('gathers the members’ capabilities once each, in member order', () => {
    const agent = swarmToAgent(makeSwarm(), { agents: [critic, analyst] })
    expect(agent.capabilities).toEqual(['analysis', 'sql', 'review'])
  })

  it('accepts a look-up function and skips members it does not know', () => {
    const agent = swarmToAgent(makeSwarm(), {
      agents: (id) => (id === 'critic' ? critic : undefined),
    })
    expect(agent.capabilities).toEqual(['review', 'analysis'])
    expect(agent.model).toBe('offline:default')
  })

  it('takes the leader’s model', () => {
    const lead = makeAgent({ id: 'lead', name: 'Lead', model: 'openai:gpt-4o-mini' })
    const swarm = makeSwarm({
      strategy: 'hierarchical',
      agents: [
        { agentId: 'analyst', role: 'worker' },
        { agentId: 'lead', role: 'leader' },
      ],
    })
    const agent = swarmToAgent(swarm, { agents: [analyst, lead] })
    expect(agent.model).toBe('openai:gpt-4o-mini')
    expect(agent.provider).toBe('openai')
  })

  it('gives each swarm its own stable placeholder wallet', () => {
    const first = swarmToAgent(makeSwarm({ id: 'one' }))
    const again = swarmToAgent(makeSwarm({ id: 'one' }))
    const other = swarmToAgent(makeSwarm({ id: 'two' }))
    expect(isWallet(first.wallet)).toBe(true)
    expect(first.wallet).toBe(again.wallet)
    expect(first.wallet).not.toBe(other.wallet)
  })

  it('produces an agent the Agent schema accepts when the swarm id is lowercase', () => {
    const agent = swarmToAgent(makeSwarm(), { now: new Date('2026-02-01T00:00:00Z') })
    expect(Agent.parse(agent)).toMatchObject({ id: 'swarm_research', type: 'orchestrator' })
    expect(agent.createdAt).toBe('2026-02-01T00:00:00.000Z')
  })

  it('refuses a swarm whose id has characters outside [A-Za-z0-9_-]', () => {
    const swarm = { ...makeSwarm(), id: 'bad id!' }
    expect(() => swarmToAgent(swarm)).toThrow(/swarm: id: may contain only letters/)
    try {
      swarmToAgent(swarm)
    } catch (error) {
      expect(BatonError.isInstance(error) && error.code).toBe('VALIDATION_FAILED')
    }
  })
})

describe('swarmIdFromAgentId', () => {
  it('returns the swarm id of a swarm agent id', () => {
    expect(swarmIdFromAgentId('swarm_research')).toBe('research')
    expect(swarmIdFromAgentId('swarm_Team-2_b')).toBe('Team-2_b')
  })

  it('returns null for an id that is not a swarm agent id', () => {
    expect(swarmIdFromAgentId('analyst')).toBeNull()
    expect(swarmIdFromAgentId('swarm-research')).toBeNull()
  })

  it.each(['swarm_', 'swarm_bad id', 'swarm_a/b', 'swarm_é', 'swarm_x.y'])(
    'throws InvalidSwarmIdError for the malformed id %j',
    (id) => {
      expect(() => swarmIdFromAgentId(id)).toThrow(InvalidSwarmIdError)
      try {
        swarmIdFromAgentId(id)
      } catch (error) {
        expect((error as InvalidSwarmIdError).code).toBe('INVALID_SWARM_ID')
        expect((error as Error).message).toContain(id)
      }
    },
  )
})

describe('isSwarmAgentId', () => {
  it('recognises the swarm_ prefix only', () => {
    expect(isSwarmAgentId('swarm_x')).toBe(true)
    expect(isSwarmAgentId('swarm_')).toBe(true)
    expect(isSwarmAgentId('swarmx')).toBe(false)
    expect(isSwarmAgentId('my_swarm_x')).toBe(false)
  })
})

describe('swarmAgentId', () => {
  it('prefixes a valid swarm id and refuses a malformed one', () => {
    expect(swarmAgentId('research')).toBe('swarm_research')
    expect(isValidSwarmId('')).toBe(false)
    expect(() => swarmAgentId('')).toThrow(InvalidSwarmIdError)
  })
})
