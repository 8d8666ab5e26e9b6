import { Agent, type AgentInput } from '../../schemas'

export const ADA_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7'
export const CREATOR_WALLET = '0x8617E340B3D01FA5F11F306F4090FD50E238070D'

/** A valid agent on the offline model; `overrides` change any field. */
export function makeAgent(overrides: Partial<AgentInput> = {}): Agent {
  return Agent.parse(agentInput(overrides))
}

/** What `makeAgent` parses: the agent as a person writes it, `overrides` merged in as given. */
export function agentInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'ada',
    wallet: ADA_WALLET,
    creator: CREATOR_WALLET,
    name: 'Ada',
    type: 'worker',
    model: 'offline:default',
    tools: [],
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    agentCard: { capabilityDescription: 'Adds numbers.' },
    ...overrides,
  }
}
