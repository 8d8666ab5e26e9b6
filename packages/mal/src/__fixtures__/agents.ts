import type { AgentInput } from '@baton/core'

export const analystWallet = '0x1111111111111111111111111111111111111111'
export const reviewerWallet = '0x2222222222222222222222222222222222222222'
export const remoteWallet = '0x3333333333333333333333333333333333333333'
export const creatorWallet = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

/** A registry record as a registry server sends it, with the offline model. */
export function agentRecord(overrides: Partial<AgentInput> = {}): AgentInput {
  return {
    id: 'risk-analyst',
    wallet: analystWallet,
    creator: creatorWallet,
    name: 'Risk Analyst',
    type: 'specialist',
    model: 'offline:default',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    ...overrides,
  }
}
