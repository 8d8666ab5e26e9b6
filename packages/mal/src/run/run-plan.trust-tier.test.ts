import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet, reviewerWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { makeAgent } from '../swarm/__fixtures__/agents'
import { runSwarm } from '../swarm/run-swarm'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([
  agentRecord({ agentCard: { trustTier: 'low' } }),
  agentRecord({ id: 'auditor', wallet: reviewerWallet, agentCard: { trustTier: 'critical' } }),
])
const delegateTo = (wallet: string) => ({
  steps: [
    { op: 'delegate', agentWallet: wallet, prompt: 'Sign off', minTrustTier: 'high', saveAs: 'ok' },
  ],
})

describe('minTrustTier on delegate', () => {
  it('refuses an agent below the tier with TRUST_TIER_TOO_LOW before anything is spent', async () => {
    const result = await runPlan(delegateTo(analystWallet), { registry, models: offlineModels() })
    expect(result.error).toMatchObject({ code: 'TRUST_TIER_TOO_LOW', path: 'steps[0]' })
    expect(result.usage.calls).toBe(0)
  })

  it('lets an agent at or above the tier do the work', async () => {
    const result = await runPlan(delegateTo(reviewerWallet), { registry, models: offlineModels() })
    expect(result.status).toBe('done')
  })
})

describe('minTrustTier on a swarm', () => {
  it('refuses to start with a member below the tier', async () => {
    const agents = [
      makeAgent({ id: 'ana', agentCard: { trustTier: 'safe' } }),
      makeAgent({ id: 'ben', agentCard: { trustTier: 'medium' } }),
    ]
    const swarm = {
      id: 's',
      name: 'S',
      strategy: 'round-robin' as const,
      minTrustTier: 'medium' as const,
      agents: [
        { agentId: 'ana', role: 'worker' as const },
        { agentId: 'ben', role: 'worker' as const },
      ],
    }
    await expect(runSwarm(swarm, 'x', { agents })).rejects.toMatchObject({
      code: 'TRUST_TIER_TOO_LOW',
    })
    const trusted = await runSwarm({ ...swarm, minTrustTier: 'safe' }, 'x', { agents })
    expect(trusted.status).toBe('done')
  })
})
