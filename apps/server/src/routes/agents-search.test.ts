import { Agent, type AgentInput } from '@baton/core'
import { createHttpDiscovery, runPlan } from '@baton/mal'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { createDatabaseDiscovery } from '../discovery/create-database-discovery'

describe.each(backends)('GET /api/v1/agents/search on %s', (backend) => {
  let app: FastifyInstance
  const store = async (id: string, fields: Partial<AgentInput>) => {
    const { agent, creator } = newAgentAccounts(id)
    const parsed = Agent.parse({ ...agent, ...fields })
    await app.baton.repositories.agents.insert(parsed, creator.address)
    return parsed
  }
  let reviewer: Agent
  let revoked: Agent
  let writer: Agent
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    reviewer = await store('sql-reviewer', {
      name: 'SQL Reviewer',
      type: 'reviewer',
      description: 'Reviews database migrations for locking problems',
      capabilities: ['sql', 'review'],
      agentCard: { trustTier: 'high', examples: ['check this alter table'] },
    })
    // A tier above the default counts once an admin grants it (docs/security.md).
    await app.baton.repositories.agents.grantTrustTier(reviewer.wallet, 'high')
    revoked = await store('old-reviewer', {
      name: 'Old SQL Reviewer',
      capabilities: ['sql', 'review'],
    })
    await app.baton.repositories.agents.revoke(revoked, revoked.creator)
    writer = await store('copywriter', {
      name: 'Copywriter',
      description: 'Writes marketing copy for launches',
      capabilities: ['writing'],
    })
  })
  afterAll(async () => {
    await app.close()
  })

  const search = async (query: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/v1/agents/search?${query}` })
    return { status: response.statusCode, body: response.json() }
  }

  it('ranks live agents by full-text relevance and never returns a revoked one', async () => {
    const { status, body } = await search('q=sql%20migration%20review')
    expect(status).toBe(200)
    expect(body.agents.map((match: { wallet: string }) => match.wallet)).toEqual([reviewer.wallet])
    expect(body.agents[0]).toEqual({
      wallet: reviewer.wallet,
      name: 'SQL Reviewer',
      description: 'Reviews database migrations for locking problems',
      capabilities: ['sql', 'review'],
      score: expect.any(Number),
    })
    expect(body.agents[0].score).toBeGreaterThan(0)
  })

  it('finds by card examples and word prefixes, and filters by capability and trust tier', async () => {
    expect((await search('q=alter')).body.agents[0]?.wallet).toBe(reviewer.wallet)
    expect((await search('q=launch')).body.agents[0]?.wallet).toBe(writer.wallet)
    expect((await search('q=writes%20reviews&capability=writing')).body.agents).toHaveLength(1)
    const trusted = (await search('q=writes%20reviews&trustTier=medium')).body.agents
    expect(trusted.map((match: { wallet: string }) => match.wallet)).toEqual([reviewer.wallet])
  })

  it('reads query syntax as plain words and refuses a bad limit with 400', async () => {
    expect((await search(`q=${encodeURIComponent("sql & !(':*")}`)).status).toBe(200)
    expect((await search('q=sql&limit=51')).status).toBe(400)
    expect((await search('q=')).status).toBe(400)
  })

  it('is the lookup of search_agents in a run, whose delegate the registry vouches for', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'search_agents', query: 'sql review', saveAs: 'found' },
          { op: 'stop', output: '{{found[0].wallet}}' },
        ],
      },
      { registry: app.baton.registry, discovery: createDatabaseDiscovery(app.baton.db) },
    )
    expect(result.output).toBe(reviewer.wallet)
    expect(result.usage).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
  })
})

describe('createHttpDiscovery against the server', () => {
  it('is the lookup of a run outside the server, over GET /api/v1/agents/search', async () => {
    const app = await createTestApp()
    try {
      const { agent, creator } = newAgentAccounts('http-reviewer')
      const stored = Agent.parse({ ...agent, name: 'HTTP Reviewer', capabilities: ['sql'] })
      await app.baton.repositories.agents.insert(stored, creator.address)
      const address = await app.listen({ port: 0, host: '127.0.0.1' })
      const discovery = createHttpDiscovery({ baseUrl: address })
      const found = await discovery.searchAgents!({ query: 'http reviewer', limit: 5 })
      expect(found.map((match) => match.wallet)).toEqual([stored.wallet])
      const down = createHttpDiscovery({ baseUrl: 'http://127.0.0.1:1' })
      await expect(down.searchAgents!({ query: 'x', limit: 1 })).rejects.toMatchObject({
        code: 'DISCOVERY_UNAVAILABLE',
      })
    } finally {
      await app.close()
    }
  })
})
