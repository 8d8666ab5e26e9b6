import { type AgentInput, signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'

describe.each(backends)('memoryScope on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
  })
  afterAll(async () => {
    await app.close()
  })

  /** Registers an agent of `creator` (a fresh one by default) with the given card fields. */
  async function register(fields: Partial<AgentInput> = {}, creator?: LocalAccount) {
    const accounts = newAgentAccounts()
    const owner = creator ?? accounts.creator
    const agent = { ...accounts.agent, creator: owner.address, ...fields }
    const body = await signAgentRegistration(agent, {
      registry: testRegistryId,
      creator: owner,
      agentAccount: accounts.agentAccount,
    })
    const response = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
    return { response, agent, creator: owner }
  }

  function expectMemoryScopeRefused(response: Awaited<ReturnType<typeof app.inject>>) {
    expect(response.statusCode).toBe(400)
    const { error } = response.json()
    expect(error.code).toBe('VALIDATION_FAILED')
    expect(error.details.issues.map((issue: { path: string }) => issue.path)).toContain(
      'memoryScope',
    )
  }

  it("refuses a registration that borrows another creator's agent's memory", async () => {
    const victim = await register()
    expect(victim.response.statusCode).toBe(201)
    for (const scope of [victim.agent.wallet, victim.agent.wallet.toLowerCase()]) {
      const attacker = await register({ memoryScope: scope })
      expectMemoryScopeRefused(attacker.response)
      const lookup = await app.inject({ method: 'GET', url: `/agent/${attacker.agent.wallet}` })
      expect(lookup.statusCode).toBe(404)
    }
  })

  it('refuses a named scope of another creator, an unregistered wallet and a free-form name', async () => {
    const victim = await register()
    const stranger = privateKeyToAccount(generatePrivateKey()).address
    for (const scope of [
      `creator:${victim.creator.address}/notes`,
      stranger,
      'incident-team',
      `creator:${victim.creator.address}`,
    ]) {
      expectMemoryScopeRefused((await register({ memoryScope: scope })).response)
    }
  })

  it('refuses a change that points an agent at memory of another creator', async () => {
    const victim = await register()
    const attacker = await register()
    expect(attacker.response.statusCode).toBe(201)
    const change = await signAgentChange('update', attacker.agent, {
      registry: testRegistryId,
      creator: attacker.creator,
      changes: { memoryScope: victim.agent.wallet },
    })
    const response = await app.inject({
      method: 'PATCH',
      url: `/api/v1/agents/${attacker.agent.wallet}`,
      payload: change,
    })
    expectMemoryScopeRefused(response)
    const read = await app.inject({ method: 'GET', url: `/agent/${attacker.agent.wallet}` })
    expect(read.json().memoryScope).toBe(attacker.agent.wallet)
  })

  it('lets agents of one creator share memory: a sibling wallet or a scope named by that creator', async () => {
    const first = await register()
    const sibling = await register({ memoryScope: first.agent.wallet.toLowerCase() }, first.creator)
    expect(sibling.response.statusCode).toBe(201)
    // Stored as the wallet's own spelling, so it is the very scope the first agent uses.
    expect(sibling.response.json().agent.memoryScope).toBe(first.agent.wallet)
    const team = `creator:${first.creator.address.toLowerCase()}/incident-team`
    const named = await register({ memoryScope: team }, first.creator)
    expect(named.response.statusCode).toBe(201)
    expect(named.response.json().agent.memoryScope).toBe(
      `creator:${first.creator.address}/incident-team`,
    )
    const own = await register({ memoryScope: undefined })
    expect(own.response.json().agent.memoryScope).toBe(own.agent.wallet)
    const change = await signAgentChange('update', sibling.agent, {
      registry: testRegistryId,
      creator: first.creator,
      changes: { memoryScope: `creator:${first.creator.address}/incident-team` },
    })
    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/v1/agents/${sibling.agent.wallet}`,
      payload: change,
    })
    expect(patched.statusCode).toBe(200)
  })
})
