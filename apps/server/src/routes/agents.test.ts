import { signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { newAgentAccounts, patchAgent, signedRegistration } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'

describe.each(backends)('on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
  })
  afterAll(async () => {
    await app.close()
  })

  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: '/api/v1/agents', payload: payload as object })

  async function agentCount(): Promise<number> {
    const response = await app.inject({ method: 'GET', url: '/api/v1/agents' })
    return response.json().total
  }

  describe('POST /api/v1/agents', () => {
    it('registers an agent signed by its creator and its own wallet', async () => {
      const { body, agent } = await signedRegistration('registered-one')
      const response = await post(body)
      expect(response.statusCode).toBe(201)
      expect(response.json().agent).toMatchObject({ id: 'registered-one', wallet: agent.wallet })
      const lookup = await app.inject({
        method: 'GET',
        url: `/agent/${agent.wallet.toLowerCase()}`,
      })
      expect(lookup.statusCode).toBe(200)
      expect(lookup.json().id).toBe('registered-one')
    })

    it('refuses a replayed registration (nonce seen) with 401 and stores nothing more', async () => {
      const { body } = await signedRegistration()
      expect((await post(body)).statusCode).toBe(201)
      const before = await agentCount()
      const again = await post(body)
      // The wallet is taken too, but the replay is what must be refused first or after; both refuse.
      expect([401, 409]).toContain(again.statusCode)
      expect(await agentCount()).toBe(before)
    })

    it('refuses a nonce reused for another agent with 401 SIGNATURE_REPLAYED', async () => {
      const first = await signedRegistration()
      expect((await post(first.body)).statusCode).toBe(201)
      const second = await signedRegistration()
      const reused = await signAgentRegistration(second.agent, {
        registry: testRegistryId,
        creator: second.creator,
        agentAccount: second.agentAccount,
        nonce: first.body.nonce,
      })
      const before = await agentCount()
      const response = await post(reused)
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('SIGNATURE_REPLAYED')
      // A 401 carries a challenge (RFC 9110 §15.5.2): the signed change's scheme, the code.
      expect(response.headers['www-authenticate']).toBe(
        'EIP712 realm="baton", error="signature_replayed"',
      )
      expect(await agentCount()).toBe(before)
    })

    it('refuses an expired registration with 401 and stores nothing', async () => {
      const { agent, creator, agentAccount } = await signedRegistration()
      const body = await signAgentRegistration(agent, {
        registry: testRegistryId,
        creator,
        agentAccount,
        now: () => Date.now() - 10 * 60_000,
      })
      const before = await agentCount()
      const response = await post(body)
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('SIGNATURE_EXPIRED')
      expect(response.headers['www-authenticate']).toBe(
        'EIP712 realm="baton", error="signature_expired"',
      )
      expect(await agentCount()).toBe(before)
    })

    it('refuses a deadline more than five minutes ahead', async () => {
      const { agent, creator, agentAccount } = await signedRegistration()
      const body = await signAgentRegistration(agent, {
        registry: testRegistryId,
        creator,
        agentAccount,
        lifetimeSeconds: 3600,
      })
      expect((await post(body)).statusCode).toBe(401)
    })

    it('refuses a registration signed by someone other than the creator with 403', async () => {
      const { agent, agentAccount } = await signedRegistration()
      const stranger = privateKeyToAccount(generatePrivateKey())
      const body = await signAgentRegistration(agent, {
        registry: testRegistryId,
        creator: stranger,
        agentAccount,
      })
      const before = await agentCount()
      const response = await post(body)
      expect(response.statusCode).toBe(403)
      expect(response.json().error).toMatchObject({
        code: 'FORBIDDEN',
        details: { role: 'creator' },
      })
      expect(await agentCount()).toBe(before)
    })

    it('refuses a registration the agent wallet did not sign with 403', async () => {
      const { agent, creator } = await signedRegistration()
      const body = await signAgentRegistration(agent, {
        registry: testRegistryId,
        creator,
        agentAccount: creator,
      })
      const response = await post(body)
      expect(response.statusCode).toBe(403)
      expect(response.json().error.details.role).toBe('agent wallet')
    })

    it('refuses a forged body (agent changed after signing) with 403', async () => {
      const { body } = await signedRegistration()
      const forged = { ...body, agent: { ...body.agent, name: 'Someone else' } }
      expect((await post(forged)).statusCode).toBe(403)
    })

    it('refuses an unsigned registration with 400 naming the missing fields', async () => {
      const { agent } = await signedRegistration()
      const response = await post({ agent })
      expect(response.statusCode).toBe(400)
      const { error } = response.json()
      expect(error.code).toBe('VALIDATION_FAILED')
      expect(error.message).toMatch(/creatorSignature/)
    })

    it('refuses bad JSON with 400 in the one error shape', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        headers: { 'content-type': 'application/json' },
        payload: '{"agent": ',
      })
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({
        error: { code: expect.any(String), message: expect.any(String) },
      })
    })

    it('refuses an agent that fails the schema with 400 naming the field', async () => {
      const { agent, creator, agentAccount } = await signedRegistration()
      const body = await signAgentRegistration(
        { ...agent, model: 'gpt-4o' },
        { creator, agentAccount, registry: testRegistryId },
      )
      const response = await post(body)
      expect(response.statusCode).toBe(400)
      expect(response.json().error.details.issues[0].path).toBe('model')
    })

    it('refuses an agent with a key it does not know, at any depth, with 400 naming it, and registers nothing', async () => {
      const accounts = newAgentAccounts()
      // Dropped, the agent would be registered otherwise than its creator signed: one that
      // cannot delegate, remembering on its own.
      const misspelt = {
        ...accounts.agent,
        memoryscope: 'team',
        agentCard: { canDelagate: true },
      }
      const before = await agentCount()
      const response = await post(
        await signAgentRegistration(misspelt as typeof accounts.agent, {
          ...accounts,
          registry: testRegistryId,
        }),
      )
      expect(response.statusCode).toBe(400)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message:
          'Invalid agent: memoryscope: is not a known field; agentCard.canDelagate: is not a known field',
      })
      expect(await agentCount()).toBe(before)
    })
  })

  describe('PATCH and DELETE /api/v1/agents/:wallet', () => {
    it('refuses a change with a key it does not know with 400 naming it, and changes nothing', async () => {
      const { body, agent, creator } = await signedRegistration()
      await post(body)
      const response = await patchAgent(
        app,
        { agent, creator },
        { name: 'Renamed', agentCard: { trustTeir: 'high' } },
      )
      expect(response.statusCode).toBe(400)
      expect(response.json().error.message).toBe(
        'Invalid agent change: agentCard.trustTeir: is not a known field',
      )
      const detail = (
        await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}` })
      ).json()
      expect(detail.agent.name).toBe(agent.name)
    })

    it('changes an agent with the creator signature and keeps its history', async () => {
      const { body, agent, creator } = await signedRegistration()
      await post(body)
      const change = await signAgentChange('update', agent, {
        registry: testRegistryId,
        creator,
        changes: { name: 'Renamed' },
      })
      const response = await app.inject({
        method: 'PATCH',
        url: `/api/v1/agents/${agent.wallet}`,
        payload: change,
      })
      expect(response.statusCode).toBe(200)
      expect(response.json().agent.name).toBe('Renamed')
      const read = await app.inject({ method: 'GET', url: `/agent/${agent.wallet}` })
      expect(read.json().name).toBe('Renamed')
      const detail = await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}` })
      expect(detail.json().history.map((entry: { change: string }) => entry.change)).toEqual([
        'register',
        'update',
      ])
    })

    it('keeps every signed change sent at once (none lost to a read made before another write), each in the history', async () => {
      const { body, agent, creator } = await signedRegistration()
      await post(body)
      const changes = [
        { name: 'Renamed at once' },
        { description: 'Changed at once' },
        { agentCard: { tagline: 'A tagline' } },
        { agentCard: { examples: ['an example'] } },
        { tools: [] },
      ]
      const signed = await Promise.all(
        changes.map((change) =>
          signAgentChange('update', agent, { registry: testRegistryId, creator, changes: change }),
        ),
      )
      const answers = await Promise.all(
        signed.map((payload) =>
          app.inject({ method: 'PATCH', url: `/api/v1/agents/${agent.wallet}`, payload }),
        ),
      )
      expect(answers.map((answer) => answer.statusCode)).toEqual(changes.map(() => 200))
      const detail = (
        await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}` })
      ).json()
      expect(detail.agent).toMatchObject({
        name: 'Renamed at once',
        description: 'Changed at once',
        tools: [],
        agentCard: { tagline: 'A tagline', examples: ['an example'] },
      })
      expect(
        detail.history.filter((entry: { change: string }) => entry.change === 'update'),
      ).toHaveLength(changes.length)
      // Each signature is used once: a replay of one is refused, and changes nothing.
      const replayed = await app.inject({
        method: 'PATCH',
        url: `/api/v1/agents/${agent.wallet}`,
        payload: signed[0],
      })
      expect(replayed.statusCode).toBe(401)
    })

    it("moves an agent to another provider's model: the provider follows the model", async () => {
      const { body, agent, creator } = await signedRegistration()
      await post(body)
      const change = (changes: Record<string, unknown>) =>
        patchAgent(app, { agent, creator }, changes)
      // Ollama is configured on every server (it needs no key; a change calls no model).
      const moved = await change({ model: 'ollama:llama3.2' })
      expect(moved.statusCode, moved.body).toBe(200)
      expect(moved.json().agent).toMatchObject({ model: 'ollama:llama3.2', provider: 'ollama' })
      const read = await app.inject({ method: 'GET', url: `/agent/${agent.wallet}` })
      expect(read.json()).toMatchObject({ model: 'ollama:llama3.2', provider: 'ollama' })
      // A provider the change names itself must still be the model's.
      const crossed = await change({ model: 'offline:default', provider: 'ollama' })
      expect(crossed.statusCode).toBe(400)
      expect(crossed.json().error.details.issues[0].path).toBe('provider')
    })

    it('merges a change into the card (RFC 7396): what it does not name is kept', async () => {
      const accounts = newAgentAccounts()
      const agent = {
        ...accounts.agent,
        persona: 'You list risks.',
        agentCard: { tagline: 'Risks', examples: ['review this'], trustTier: 'high' as const },
      }
      await post(await signAgentRegistration(agent, { ...accounts, registry: testRegistryId }))
      const changed = await patchAgent(app, accounts, {
        agentCard: { tagline: 'Risks, ranked' },
        persona: null,
      })
      expect(changed.statusCode, changed.body).toBe(200)
      const detail = (
        await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}` })
      ).json()
      expect(detail.agent.agentCard).toMatchObject({
        tagline: 'Risks, ranked',
        examples: ['review this'],
      })
      expect(detail.agent).not.toHaveProperty('persona')
      expect(detail.trust.requested).toBe('high')
    })

    it('refuses a change signed by another wallet with 403', async () => {
      const { body, agent, agentAccount } = await signedRegistration()
      await post(body)
      const change = await signAgentChange('update', agent, {
        registry: testRegistryId,
        creator: agentAccount,
        changes: { name: 'Hijacked' },
      })
      const response = await app.inject({
        method: 'PATCH',
        url: `/api/v1/agents/${agent.wallet}`,
        payload: change,
      })
      expect(response.statusCode).toBe(403)
    })

    it('revokes an agent: its wallet stops resolving at once, its history stays', async () => {
      const { body, agent, creator } = await signedRegistration()
      await post(body)
      // Warm the registry cache first: revocation must still take effect at once.
      await app.baton.registry.ensureRegisteredAgent(agent.wallet)
      const revoke = await signAgentChange('revoke', agent, { registry: testRegistryId, creator })
      const response = await app.inject({
        method: 'DELETE',
        url: `/api/v1/agents/${agent.wallet}`,
        payload: revoke,
      })
      expect(response.statusCode).toBe(200)
      expect((await app.inject({ method: 'GET', url: `/agent/${agent.wallet}` })).statusCode).toBe(
        404,
      )
      await expect(app.baton.registry.ensureRegisteredAgent(agent.wallet)).rejects.toMatchObject({
        code: 'UNREGISTERED_AGENT',
      })
      const history = await app.baton.repositories.agents.history(agent.wallet)
      expect(history.map((entry) => entry.change)).toEqual(['register', 'revoke'])
    })
  })

  describe('GET /api/v1/agents', () => {
    it('filters by capability, type and text, and pages', async () => {
      for (const id of ['page-a', 'page-b', 'page-c'])
        await post((await signedRegistration(id)).body)
      const byText = await app.inject({ method: 'GET', url: '/api/v1/agents?text=page-&limit=2' })
      expect(byText.json()).toMatchObject({ total: 3, limit: 2, offset: 0 })
      expect(byText.json().agents).toHaveLength(2)
      const next = await app.inject({
        method: 'GET',
        url: '/api/v1/agents?text=page-&limit=2&offset=2',
      })
      expect(next.json().agents.map((agent: { id: string }) => agent.id)).toEqual(['page-c'])
      const none = await app.inject({ method: 'GET', url: '/api/v1/agents?capability=cooking' })
      expect(none.json().total).toBe(0)
      const byType = await app.inject({
        method: 'GET',
        url: '/api/v1/agents?type=specialist&text=page-a',
      })
      expect(byType.json().total).toBe(1)
    })
  })

  describe('GET /agent/:wallet', () => {
    it('answers 400 for a malformed wallet and 404 for an unknown one', async () => {
      const bad = await app.inject({ method: 'GET', url: '/agent/0x1234' })
      expect(bad.statusCode).toBe(400)
      expect(bad.json().error.code).toBe('MALFORMED_WALLET')
      const unknown = await app.inject({
        method: 'GET',
        url: `/agent/${privateKeyToAccount(generatePrivateKey()).address}`,
      })
      expect(unknown.statusCode).toBe(404)
    })
  })
})
