import { describe, expect, it } from 'vitest'
import { issuesFor, pathsFor } from './__fixtures__/issues'
import { AgentSwarm, type AgentSwarmInput } from './swarm'

function swarm(overrides: Partial<AgentSwarmInput> = {}): AgentSwarmInput {
  return {
    id: 'incident_review-1',
    name: 'Incident review',
    strategy: 'hierarchical',
    agents: [
      { agentId: 'ops-orchestrator', role: 'leader' },
      { agentId: 'incident-analyst', role: 'worker', weight: 0.5 },
      { agentId: 'reviewer', role: 'critic' },
    ],
    ...overrides,
  }
}

describe('AgentSwarm', () => {
  it('parses a swarm, filling defaults', () => {
    expect(AgentSwarm.parse(swarm())).toMatchObject({
      consensusThreshold: 0.5,
      maxRounds: 3,
      agents: [{ weight: 1 }, { weight: 0.5 }, { weight: 1 }],
    })
  })

  it('accepts a democratic swarm without a leader', () => {
    const members = [
      { agentId: 'a', role: 'worker' as const },
      { agentId: 'b', role: 'worker' as const },
    ]
    expect(
      AgentSwarm.parse(swarm({ strategy: 'democratic', agents: members })).agents,
    ).toHaveLength(2)
  })

  it('refuses a swarm without members', () => {
    expect(issuesFor(AgentSwarm, swarm({ strategy: 'democratic', agents: [] }))).toEqual([
      { path: 'agents', message: 'a swarm needs at least one member' },
    ])
  })

  it('refuses a second leader, naming its role and the first leader', () => {
    const agents = [
      { agentId: 'a', role: 'leader' as const },
      { agentId: 'b', role: 'leader' as const },
    ]
    expect(issuesFor(AgentSwarm, swarm({ agents }))).toEqual([
      {
        path: 'agents[1].role',
        message: 'a swarm may have one leader; agents[0] is already the leader',
      },
    ])
  })

  it('refuses a hierarchical swarm without a leader', () => {
    const agents = [{ agentId: 'a', role: 'worker' as const }]
    expect(issuesFor(AgentSwarm, swarm({ agents }))).toEqual([
      { path: 'agents', message: 'a hierarchical swarm needs a leader' },
    ])
  })

  it('refuses a member listed twice, naming where it first appears', () => {
    const agents = [
      { agentId: 'lead', role: 'leader' as const },
      { agentId: 'a', role: 'worker' as const },
      { agentId: 'a', role: 'critic' as const },
    ]
    expect(issuesFor(AgentSwarm, swarm({ agents }))).toEqual([
      { path: 'agents[2].agentId', message: '"a" is already a member at agents[1]' },
    ])
  })

  it.each([
    ['an id with spaces', { id: 'incident review' }, ['id']],
    ['an id with a slash', { id: 'team/review' }, ['id']],
    ['an empty name', { name: '' }, ['name']],
    ['an unknown strategy', { strategy: 'anarchy' }, ['strategy']],
    ['a consensus threshold above 1', { consensusThreshold: 1.5 }, ['consensusThreshold']],
    ['a negative consensus threshold', { consensusThreshold: -0.1 }, ['consensusThreshold']],
    ['zero rounds', { maxRounds: 0 }, ['maxRounds']],
    ['fractional rounds', { maxRounds: 1.5 }, ['maxRounds']],
  ])('refuses %s, naming the field', (_label, overrides, paths) => {
    expect(pathsFor(AgentSwarm, swarm(overrides as Partial<AgentSwarmInput>))).toEqual(paths)
  })

  it.each([
    ['a weight above 1', { weight: 1.2 }, 'agents[1].weight'],
    ['a negative weight', { weight: -0.5 }, 'agents[1].weight'],
    ['an unknown role', { role: 'boss' }, 'agents[1].role'],
    ['an empty agent id', { agentId: '' }, 'agents[1].agentId'],
  ])('refuses a member with %s, naming the member and field', (_label, change, path) => {
    const agents = swarm().agents.map((member, index) =>
      index === 1 ? { ...member, ...change } : member,
    )
    expect(pathsFor(AgentSwarm, swarm({ agents } as Partial<AgentSwarmInput>))).toEqual([path])
  })
})
