import { Agent, type AgentInput, AgentSwarm, type AgentSwarmInput } from '@baton/core'

let counter = 0

/** A valid agent; each call gets its own wallet unless one is given. */
export function makeAgent(overrides: Partial<AgentInput> & { id: string; name: string }): Agent {
  counter += 1
  const wallet = `0x${counter.toString(16).padStart(40, '0')}`
  return Agent.parse({
    wallet,
    creator: '0x00000000000000000000000000000000000000aa',
    type: 'worker',
    model: 'offline:default',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  })
}

export function makeSwarm(overrides: Partial<AgentSwarmInput> = {}): AgentSwarm {
  return AgentSwarm.parse({
    id: 'research',
    name: 'Research Swarm',
    strategy: 'round-robin',
    agents: [
      { agentId: 'analyst', role: 'worker' },
      { agentId: 'critic', role: 'critic' },
    ],
    maxRounds: 1,
    ...overrides,
  })
}

export const analyst = makeAgent({
  id: 'analyst',
  name: 'Analyst',
  capabilities: ['analysis', 'sql'],
})
export const critic = makeAgent({
  id: 'critic',
  name: 'Critic',
  type: 'reviewer',
  capabilities: ['review', 'analysis'],
})
export const opsOrchestrator = makeAgent({
  id: 'ops',
  name: 'Ops Orchestrator',
  type: 'orchestrator',
  agentCard: { canDelegate: true },
})
export const ops = makeAgent({ id: 'ops-bot', name: 'Ops' })
