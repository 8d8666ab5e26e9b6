import { Agent, type AgentInput } from '@baton/core'

export const CALLER_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7'
const CREATOR_WALLET = '0x8617E340B3D01FA5F11F306F4090FD50E238070D'

/**
 * An orchestrator on the offline model whose card lists the file tools and may delegate;
 * `overrides` change any field.
 */
export function makeAgent(overrides: Partial<AgentInput> = {}): Agent {
  return Agent.parse({
    id: 'lead',
    wallet: CALLER_WALLET,
    creator: CREATOR_WALLET,
    name: 'Lead',
    type: 'orchestrator',
    model: 'offline:default',
    maxIterations: 20,
    tools: ['read_file', 'write_file', 'list_files'],
    agentCard: { canDelegate: true },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  })
}
