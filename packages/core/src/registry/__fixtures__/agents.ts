import type { AgentInput } from '../../schemas/agent'

export const analystWallet = '0x52908400098527886E0F7030069857D2E4169EE7'
export const reviewerWallet = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'
export const creatorWallet = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

/** A registry record as the server would send it. */
export function agentRecord(overrides: Partial<AgentInput> = {}): AgentInput {
  return {
    id: 'incident-analyst',
    wallet: analystWallet,
    creator: creatorWallet,
    name: 'Incident Analyst',
    type: 'specialist',
    model: 'offline:default',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    ...overrides,
  }
}
