import {
  BatonError,
  createRegistryClient,
  MalformedWalletError,
  RegistryUnavailableError,
  signAgentChange,
  signAgentRegistration,
  UnregisteredAgentError,
} from '@baton/core'
import { createHttpSwarmRunner } from '@baton/surface/vanilla'
import type { FastifyInstance } from 'fastify'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { newAgentAccounts, signedRegistration } from '../__fixtures__/signed-agents'
import { shapeProblems } from '../http/response-serializer'
import { testRegistryId } from '../settings'
import { AgentJson } from './responses/agents'

let app: FastifyInstance
let base: string
beforeAll(async () => {
  ;({ app, base } = await listenTestApp())
})
afterAll(async () => {
  await app.close()
})

async function rejection(promise: Promise<unknown>): Promise<BatonError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the look-up to fail')
    },
    (error: unknown) => error,
  )
  if (!BatonError.isInstance(error)) throw error
  return error
}

async function register() {
  const registration = await signedRegistration()
  const response = await fetch(`${base}/api/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(registration.body),
  })
  expect(response.status).toBe(201)
  return registration
}

describe('GET /agent/:wallet', () => {
  it('answers JSON with the security headers that matter for it, an ETag, and a 304 for an unchanged agent', async () => {
    const { agent } = await register()
    const first = await fetch(`${base}/agent/${agent.wallet}`)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(first.headers.get('x-content-type-options')).toBe('nosniff')
    expect(first.headers.get('cross-origin-resource-policy')).toBe('same-origin')
    expect(first.headers.get('strict-transport-security')).toContain('max-age=')
    // What protects a page a browser renders is not sent with this JSON.
    expect(first.headers.get('x-frame-options')).toBeNull()
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^".+"$/)
    const again = await fetch(`${base}/agent/${agent.wallet}`, {
      headers: { 'if-none-match': etag! },
    })
    expect(again.status).toBe(304)
    // Another spelling of the wallet is the same agent, the same answer.
    expect((await fetch(`${base}/agent/${agent.wallet.toLowerCase()}`)).headers.get('etag')).toBe(
      etag,
    )
    // Unknown and malformed wallets keep their 404 and 400, with the same headers.
    const unknown = await fetch(`${base}/agent/0x${'9'.repeat(40)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('x-content-type-options')).toBe('nosniff')
    expect((await fetch(`${base}/agent/not-a-wallet`)).status).toBe(400)
  })

  // The kept answer is sent as it is, past the serializer that checks other answers.
  it('answers what the Agent schema of the OpenAPI document says, optional fields too', async () => {
    const { creator, agentAccount, agent } = newAgentAccounts()
    const body = await signAgentRegistration(
      {
        ...agent,
        persona: 'You answer in one line.',
        agentCard: { tagline: 'Checks SQL', inputSchema: { type: 'object' } },
      },
      { creator, agentAccount, registry: testRegistryId },
    )
    const registered = await fetch(`${base}/api/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(registered.status).toBe(201)
    const response = await fetch(`${base}/agent/${agent.wallet}`)
    expect(response.status).toBe(200)
    expect(shapeProblems(AgentJson, await response.json())).toEqual([])
  })

  it('answers a warm wallet, in any case spelling, from the cache without a database query', async () => {
    const { agent } = await register()
    expect((await fetch(`${base}/agent/${agent.wallet}`)).status).toBe(200)
    const find = vi.spyOn(app.baton.repositories.agents, 'find')
    try {
      const response = await fetch(`${base}/agent/${agent.wallet.toLowerCase()}`)
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ id: agent.id, wallet: agent.wallet })
      expect(find).not.toHaveBeenCalled()
    } finally {
      find.mockRestore()
    }
  })

  it('stops resolving a revoked agent at once, with the cache warm (404)', async () => {
    const { agent, creator } = await register()
    expect((await fetch(`${base}/agent/${agent.wallet}`)).status).toBe(200)
    const revoke = await signAgentChange('revoke', agent, { registry: testRegistryId, creator })
    const revoked = await fetch(`${base}/api/v1/agents/${agent.wallet}`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(revoke),
    })
    expect(revoked.status).toBe(200)
    const response = await fetch(`${base}/agent/${agent.wallet}`)
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } })
  })

  it('answers a changed agent after PATCH, not the cached one', async () => {
    const { agent, creator } = await register()
    expect((await fetch(`${base}/agent/${agent.wallet}`)).status).toBe(200)
    const change = await signAgentChange('update', agent, {
      registry: testRegistryId,
      creator,
      changes: { name: 'Renamed' },
    })
    const patched = await fetch(`${base}/api/v1/agents/${agent.wallet}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(change),
    })
    expect(patched.status).toBe(200)
    const response = await fetch(`${base}/agent/${agent.wallet}`)
    expect(await response.json()).toMatchObject({ name: 'Renamed' })
  })
})

describe('createRegistryClient against the server', () => {
  it('resolves a registered agent, in any case spelling, from one cached request', async () => {
    const { agent } = await register()
    const registry = createRegistryClient({ baseUrl: base, timeoutMs: 20_000 })
    const lower = agent.wallet.toLowerCase()
    const resolved = await registry.ensureRegisteredAgent(lower)
    expect(resolved).toMatchObject({ id: agent.id, wallet: agent.wallet, provider: 'offline' })
    expect(await registry.ensureRegisteredAgent(`0x${lower.slice(2).toUpperCase()}`)).toBe(resolved)
  })

  it('refuses an unknown wallet as unregistered (404)', async () => {
    const registry = createRegistryClient({ baseUrl: base, timeoutMs: 20_000 })
    const error = await rejection(
      registry.ensureRegisteredAgent(privateKeyToAccount(generatePrivateKey()).address),
    )
    expect(error).toBeInstanceOf(UnregisteredAgentError)
    expect((error as UnregisteredAgentError).status).toBe(404)
  })

  it('refuses a missing or malformed wallet without asking', async () => {
    const registry = createRegistryClient({ baseUrl: base, timeoutMs: 20_000 })
    expect(await rejection(registry.ensureRegisteredAgent(''))).toBeInstanceOf(
      UnregisteredAgentError,
    )
    expect(await rejection(registry.ensureRegisteredAgent('0x1234'))).toBeInstanceOf(
      MalformedWalletError,
    )
  })

  it('refuses a revoked agent once its cache entry is gone', async () => {
    const { agent, creator } = await register()
    const registry = createRegistryClient({ baseUrl: base, timeoutMs: 20_000, ttlMs: 0 })
    await registry.ensureRegisteredAgent(agent.wallet)
    const revoke = await signAgentChange('revoke', agent, { registry: testRegistryId, creator })
    const response = await fetch(`${base}/api/v1/agents/${agent.wallet}`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(revoke),
    })
    expect(response.status).toBe(200)
    expect(await rejection(registry.ensureRegisteredAgent(agent.wallet))).toBeInstanceOf(
      UnregisteredAgentError,
    )
  })

  it('fails closed when pointed at a path of the server that is not the registry', async () => {
    const registry = createRegistryClient({ baseUrl: `${base}/api/v1`, timeoutMs: 20_000 })
    const error = await rejection(
      registry.ensureRegisteredAgent('0x1111111111111111111111111111111111111111'),
    )
    // The server's JSON 404 for an unknown route reads as "not registered": fail closed.
    expect(error).toBeInstanceOf(UnregisteredAgentError)
    expect(error).not.toBeInstanceOf(RegistryUnavailableError)
  })
})

describe('createHttpSwarmRunner against the server', () => {
  it('starts the dev-team swarm and streams its events to swarm-finish', async () => {
    const runner = createHttpSwarmRunner({ baseUrl: `${base}/api/v1`, timeoutMs: 20_000 })
    const runId = await runner.start('dev-team', 'Review the release notes')
    const events = await new Promise<{ type: string }[]>((resolve) => {
      const seen: { type: string }[] = []
      runner.subscribe(runId, (event) => {
        seen.push(event)
        if (event.type === 'swarm-finish' || event.type === 'swarm-error') resolve(seen)
      })
    })
    expect(events[0]?.type).toBe('swarm-start')
    const last = events.at(-1) as { type: string; result?: { status: string } }
    expect(last.type).toBe('swarm-finish')
    expect(last.result?.status).toBe('done')
    const run = await (await fetch(`${base}/api/v1/runs/${runId}`)).json()
    expect(run).toMatchObject({ kind: 'swarm', swarmId: 'dev-team', status: 'done' })
  })

  it('reports an unknown swarm as refused', async () => {
    const runner = createHttpSwarmRunner({ baseUrl: `${base}/api/v1`, timeoutMs: 20_000 })
    await expect(runner.start('nope', 'x')).rejects.toMatchObject({ code: expect.any(String) })
  })
})
