import { Agent, type AgentInput } from '@baton/core'

const base = {
  creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  model: 'offline:default',
  createdAt: '2026-12-01T08:00:00.000Z',
  updatedAt: '2026-12-01T08:00:00.000Z',
}

export function makeAgent(
  overrides: Partial<AgentInput> & { id: string; name: string; wallet: string },
): Agent {
  return Agent.parse({ ...base, type: 'specialist', ...overrides })
}

export const orchestrator = makeAgent({
  id: 'orchestrator',
  name: 'Ops Orchestrator',
  type: 'orchestrator',
  wallet: '0x1000000000000000000000000000000000000001',
  agentCard: { tagline: 'Delegates to the team', canDelegate: true },
})
export const analyst = makeAgent({
  id: 'analyst',
  name: 'Incident Analyst',
  wallet: '0x1000000000000000000000000000000000000002',
})
export const reviewer = makeAgent({
  id: 'reviewer',
  name: 'Reviewer',
  type: 'reviewer',
  wallet: '0x1000000000000000000000000000000000000003',
})
export const ops = makeAgent({
  id: 'ops',
  name: 'Ops',
  wallet: '0x1000000000000000000000000000000000000004',
})

export const agents = [orchestrator, analyst, reviewer, ops]
