import { signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'

describe.each(backends)('registrations are for one registry, on %s', (backend) => {
  // Two servers with registry ids of their own (derived from their runtime keys).
  let serverA: FastifyInstance
  let serverB: FastifyInstance
  let registryA: `0x${string}`
  beforeAll(async () => {
    serverA = await createTestApp({ ...(await databaseSettings(backend)), registryId: undefined })
    serverB = await createTestApp({ ...(await databaseSettings(backend)), registryId: undefined })
    registryA = (await serverA.inject({ method: 'GET', url: '/api/v1/runtime' })).json().registry
  })
  afterAll(async () => {
    await serverA?.close()
    await serverB?.close()
  })

  const post = (
    app: FastifyInstance,
    url: string,
    method: 'POST' | 'PATCH' | 'DELETE',
    payload: object,
  ) => app.inject({ method, url, payload })

  it('publishes a registry id derived from the runtime key, one per server', async () => {
    const runtimeA = (await serverA.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
    const runtimeB = (await serverB.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
    expect(runtimeA.registry).toMatch(/^0x[0-9a-f]{64}$/)
    expect(runtimeB.registry).not.toBe(runtimeA.registry)
    const pinned = await createTestApp({ registryId: `0x${'42'.repeat(32)}` })
    try {
      const runtime = (await pinned.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
      expect(runtime.registry).toBe(`0x${'42'.repeat(32)}`)
    } finally {
      await pinned.close()
    }
  })

  it('refuses on server B a registration signed for server A (401), and stores nothing', async () => {
    const { agent, creator, agentAccount } = newAgentAccounts()
    const body = await signAgentRegistration(agent, { creator, agentAccount, registry: registryA })
    const onB = await post(serverB, '/api/v1/agents', 'POST', body)
    expect(onB.statusCode).toBe(401)
    expect(onB.json().error).toMatchObject({
      code: 'SIGNATURE_WRONG_REGISTRY',
      details: { registry: registryA },
    })
    expect(
      (await serverB.inject({ method: 'GET', url: `/agent/${agent.wallet}` })).statusCode,
    ).toBe(404)
    // Naming B's registry instead does not help: the signatures are for A's domain.
    const registryB = (await serverB.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
      .registry
    const relabelled = await post(serverB, '/api/v1/agents', 'POST', {
      ...body,
      registry: registryB,
    })
    expect(relabelled.statusCode).toBe(403)
    expect((await post(serverA, '/api/v1/agents', 'POST', body)).statusCode).toBe(201)
  })

  it('refuses a body without a registry with 400 naming it', async () => {
    const { agent, creator, agentAccount } = newAgentAccounts()
    const { registry: _registry, ...body } = await signAgentRegistration(agent, {
      creator,
      agentAccount,
      registry: registryA,
    })
    const response = await post(serverA, '/api/v1/agents', 'POST', body)
    expect(response.statusCode).toBe(400)
    expect(response.json().error.details.issues[0].path).toBe('body.registry')
  })

  it('refuses on server B a change and a revocation signed for server A', async () => {
    const accounts = newAgentAccounts()
    const registryB = (await serverB.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
      .registry
    for (const [app, registry] of [
      [serverA, registryA],
      [serverB, registryB],
    ] as const) {
      const body = await signAgentRegistration(accounts.agent, { ...accounts, registry })
      expect((await post(app, '/api/v1/agents', 'POST', body)).statusCode).toBe(201)
    }
    const url = `/api/v1/agents/${accounts.agent.wallet}`
    const change = await signAgentChange('update', accounts.agent, {
      creator: accounts.creator,
      registry: registryA,
      changes: { name: 'Changed on A' },
    })
    const revoke = await signAgentChange('revoke', accounts.agent, {
      creator: accounts.creator,
      registry: registryA,
    })
    for (const [method, body] of [
      ['PATCH', change],
      ['DELETE', revoke],
    ] as const) {
      const response = await post(serverB, url, method, body)
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('SIGNATURE_WRONG_REGISTRY')
    }
    const onB = (
      await serverB.inject({ method: 'GET', url: `/agent/${accounts.agent.wallet}` })
    ).json()
    expect(onB.name).toBe(accounts.agent.name)
    expect((await post(serverA, url, 'DELETE', revoke)).statusCode).toBe(200)
  })
})
