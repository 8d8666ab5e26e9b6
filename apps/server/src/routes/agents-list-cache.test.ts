import { Agent, signAgentChange } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { signedRegistration } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { createRepositories } from '../db/repositories'
import { shapeProblems } from '../http/response-serializer'
import { seedDemo } from '../seed/seed-demo'
import { testRegistryId } from '../settings'
import { AgentPage } from './responses/agents'

// A low limit, so the test can reach it on the list route itself.
const rateLimit = { max: 30, windowMs: 60_000 }
let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp({ rateLimit })
  await seedDemo(app.baton)
})
afterAll(async () => {
  await app.close()
})

const list = (url = '/api/v1/agents', headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers })
const ids = (body: { agents: { id: string }[] }) => body.agents.map((agent) => agent.id)

describe('GET /api/v1/agents, kept serialised', () => {
  it('answers the page with the security headers that matter for JSON, an ETag and a 304 when unchanged', async () => {
    const first = await list()
    expect(first.statusCode).toBe(200)
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(first.headers['x-content-type-options']).toBe('nosniff')
    expect(first.headers['cross-origin-resource-policy']).toBe('same-origin')
    expect(first.headers['strict-transport-security']).toContain('max-age=')
    expect(first.headers['x-ratelimit-limit']).toBe(String(rateLimit.max))
    const stored = await app.baton.repositories.agents.list({ limit: 50, offset: 0 })
    expect(first.json()).toEqual(JSON.parse(JSON.stringify({ ...stored, limit: 50, offset: 0 })))
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^".+"$/)
    const unchanged = await list('/api/v1/agents', { 'if-none-match': etag })
    expect(unchanged.statusCode).toBe(304)
    expect(unchanged.body).toBe('')
    // Another query is another page, with its own answer.
    const second = await list('/api/v1/agents?limit=1')
    expect(second.json()).toMatchObject({ limit: 1, offset: 0 })
    expect(second.headers.etag).not.toBe(etag)
  })

  // The kept page is sent as it is, past the serializer that checks other answers.
  it('answers what the AgentPage schema of the OpenAPI document says', async () => {
    const page = await list('/api/v1/agents?limit=200')
    expect(page.json().agents.length).toBeGreaterThan(0)
    expect(shapeProblems(AgentPage, page.json())).toEqual([])
  })

  it('answers a warm page without reading the repository', async () => {
    await list('/api/v1/agents?limit=7')
    const read = vi.spyOn(app.baton.repositories.agents, 'list')
    try {
      expect((await list('/api/v1/agents?limit=7')).statusCode).toBe(200)
      expect(read).not.toHaveBeenCalled()
    } finally {
      read.mockRestore()
    }
  })

  it('shows a registration and a revocation on the next read, with a new ETag', async () => {
    const before = await list('/api/v1/agents?limit=100')
    const { body, agent, creator } = await signedRegistration()
    const registered = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
    expect(registered.statusCode).toBe(201)
    const after = await list('/api/v1/agents?limit=100')
    expect(ids(after.json())).toContain(agent.id)
    expect(after.json().total).toBe(before.json().total + 1)
    expect(after.headers.etag).not.toBe(before.headers.etag)
    // A client holding the old ETag gets the new page, not a 304.
    expect(
      (await list('/api/v1/agents?limit=100', { 'if-none-match': before.headers.etag as string }))
        .statusCode,
    ).toBe(200)
    const revoke = await signAgentChange('revoke', agent, { registry: testRegistryId, creator })
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/api/v1/agents/${agent.wallet}`,
      payload: revoke,
    })
    expect(revoked.statusCode).toBe(200)
    expect(ids((await list('/api/v1/agents?limit=100')).json())).not.toContain(agent.id)
  })

  it('is dropped by an invalidation from elsewhere (another process, through the registry)', async () => {
    const { agent, creator } = await signedRegistration()
    const before = (await list('/api/v1/agents?limit=99')).json()
    // Written past this process's cache, as another process would, then announced.
    const elsewhere = createRepositories(app.baton.db, app.baton.writer)
    await elsewhere.agents.insert(Agent.parse(agent), creator.address)
    expect(ids((await list('/api/v1/agents?limit=99')).json())).not.toContain(agent.id)
    app.baton.registry.invalidate(agent.wallet)
    const after = (await list('/api/v1/agents?limit=99')).json()
    expect(ids(after)).toContain(agent.id)
    expect(after.total).toBe(before.total + 1)
  })

  it('still refuses a client past the rate limit on this route with 429', async () => {
    let status = 0
    for (let index = 0; index < rateLimit.max + 5 && status !== 429; index++) {
      status = (await list()).statusCode
    }
    expect(status).toBe(429)
    const refused = await list()
    expect(refused.statusCode).toBe(429)
    expect(refused.json().error.code).toBe('RATE_LIMITED')
  })
})
