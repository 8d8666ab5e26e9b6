import { createBudget, createStaticRegistry, createToolRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, remoteWallet, reviewerWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { createStaticDiscovery } from '../discovery'
import { safeParsePlan } from '../validate'
import { runPlan } from './run-plan'

const reviewer = agentRecord({
  id: 'sql-reviewer',
  wallet: reviewerWallet,
  name: 'SQL Reviewer',
  description: 'Reviews database migrations',
  capabilities: ['sql', 'review'],
  persona: '[[answer:looks safe]]',
})
// In the lookup's index but no longer in the registry: revoked since it was indexed.
const revoked = agentRecord({
  id: 'old-sql-reviewer',
  wallet: remoteWallet,
  name: 'SQL Reviewer (old)',
  capabilities: ['sql', 'review'],
})
const registry = createStaticRegistry([reviewer])
const discovery = createStaticDiscovery({ agents: [reviewer, revoked] })

const findAndDelegate = {
  steps: [
    { op: 'search_agents', query: 'sql review', capability: 'sql', saveAs: 'found' },
    {
      op: 'delegate',
      agentWallet: '{{found[0].wallet}}',
      prompt: 'Review this migration',
      saveAs: 'review',
    },
    { op: 'stop', output: { found: '{{found}}', review: '{{review}}' } },
  ],
}

describe('search_agents', () => {
  it('finds a specialist a later delegate addresses, the registry vouching for it again', async () => {
    const result = await runPlan(findAndDelegate, {
      registry,
      discovery,
      models: offlineModels(),
    })
    expect(result.status).toBe('done')
    const output = result.output as { found: { wallet: string }[] }
    expect(output.found.map((match) => match.wallet)).toEqual([reviewerWallet])
    const delegated = result.events.find(
      (event) => event.type === 'step-finish' && event.op === 'delegate',
    )
    expect(delegated && 'wallet' in delegated ? delegated.wallet : undefined).toBe(reviewerWallet)
  })

  it('never returns an agent the registry no longer vouches for', async () => {
    const result = await runPlan(
      { steps: [{ op: 'search_agents', query: 'old sql reviewer', saveAs: 'found' }] },
      { registry, discovery },
    )
    expect((result.values.found as { wallet: string }[]).map((match) => match.wallet)).toEqual([
      reviewerWallet,
    ])
  })

  it('charges no budget, even one with no calls left', async () => {
    const budget = createBudget({ calls: 1 })
    const result = await runPlan(
      { steps: [{ op: 'search_agents', query: 'sql', saveAs: 'found' }] },
      { registry, discovery, budget },
    )
    expect(result.status).toBe('done')
    expect(result.usage).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
    expect(budget.spent().calls).toBe(0)
  })

  it('fails with DISCOVERY_UNAVAILABLE when the run has no agent lookup', async () => {
    const result = await runPlan(
      { steps: [{ op: 'search_agents', query: 'sql', saveAs: 'found' }] },
      { registry },
    )
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'DISCOVERY_UNAVAILABLE', path: 'steps[0]' })
  })

  it('refuses a limit above 50 when the plan is parsed', () => {
    const parsed = safeParsePlan({
      steps: [{ op: 'search_agents', query: 'sql', limit: 51, saveAs: 'found' }],
    })
    expect(parsed.success).toBe(false)
  })
})

describe('search_tools', () => {
  it('ranks the run’s own tools by name and description without a lookup', async () => {
    const toolRegistry = createToolRegistry()
    toolRegistry.register('fetch_page', {
      description: 'Fetches a web page',
      inputSchema: undefined as never,
      execute: async () => '',
    })
    toolRegistry.register('sum', {
      description: 'Adds numbers',
      inputSchema: undefined as never,
      execute: async () => 0,
    })
    const result = await runPlan(
      { steps: [{ op: 'search_tools', query: 'web page', saveAs: 'tools' }] },
      { registry, toolRegistry },
    )
    expect(result.values.tools).toEqual([
      { name: 'fetch_page', description: 'Fetches a web page', score: expect.any(Number) },
    ])
  })
})

describe('search_models', () => {
  it('finds the configured models by capability and price, cheapest first', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'search_models', capability: 'offline', maxOutputPerMTok: 1, saveAs: 'models' },
        ],
      },
      { registry, models: offlineModels() },
    )
    expect(result.values.models).toEqual([
      {
        model: 'offline:default',
        provider: 'offline',
        capabilities: ['text', 'offline', 'deterministic'],
        price: { inputPerMTok: 0.1, outputPerMTok: 0.4 },
        score: 1,
      },
    ])
  })
})
