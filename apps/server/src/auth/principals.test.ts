import { createHash } from 'node:crypto'
import { GetTaskRequest, ListTasksRequest, SendMessageRequest, type Task } from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { signAgentChange, signAgentRegistration } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { testRegistryId } from '../settings'

const adminToken = 'principals-admin-token-0123456789'
let app: FastifyInstance
let base: string
let alice: string
let bob: string
let reader: string

const as = (key: string | undefined): Record<string, string> =>
  key ? { authorization: `Bearer ${key}` } : {}
const call = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  key?: string,
  payload?: object,
) => app.inject({ method, url, headers: as(key), ...(payload ? { payload } : {}) })

async function makeKey(name: string, scopes: string[]): Promise<string> {
  const response = await call('POST', '/api/v1/keys', adminToken, { name, scopes })
  expect(response.statusCode).toBe(201)
  return response.json().key
}

beforeAll(async () => {
  // A token and no BATON_PUBLIC_READS: reads are private by default.
  ;({ app, base } = await listenTestApp({
    settings: { apiToken: adminToken, publicReads: undefined },
  }))
  alice = await makeKey('alice', ['read', 'run', 'register'])
  bob = await makeKey('bob', ['read', 'run'])
  reader = await makeKey('reader', ['read'])
})
afterAll(async () => {
  await app.close()
})

const payroll = {
  inputs: { password: 'string' },
  steps: [
    { op: 'ask_user', question: 'Approve payroll?', saveAs: 'decision' },
    { op: 'stop', output: 'payroll: {{decision}}' },
  ],
}

async function pausedRunOf(key: string): Promise<string> {
  const started = await call('POST', '/api/v1/runs', key, {
    plan: payroll,
    inputs: { password: 'hunter2' },
  })
  expect(started.statusCode).toBe(202)
  const id = started.json().id as string
  await waitFor(async () =>
    (await call('GET', `/api/v1/runs/${id}`, key)).json().status === 'paused' ? true : undefined,
  )
  return id
}

describe('API keys', () => {
  it('are stored as sha256 digests and never listed', async () => {
    const listed = await call('GET', '/api/v1/keys', adminToken)
    expect(listed.statusCode).toBe(200)
    expect(JSON.stringify(listed.json())).not.toContain(alice)
    const rows = await app.baton.db.selectFrom('api_keys').selectAll().execute()
    expect(rows.map((row) => row.key_hash)).toContain(
      createHash('sha256').update(alice).digest('hex'),
    )
    expect(JSON.stringify(rows)).not.toContain(alice)
  })

  it('resolve to a principal with their scopes; the admin routes need the admin scope', async () => {
    const me = await call('GET', '/api/v1/whoami', bob)
    expect(me.json().principal).toMatchObject({ kind: 'key', name: 'bob', scopes: ['read', 'run'] })
    expect((await call('GET', '/api/v1/whoami', adminToken)).json().principal.kind).toBe('admin')
    const refused = await call('POST', '/api/v1/keys', bob, { name: 'mine', scopes: ['admin'] })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: { scope: 'admin' } })
    expect((await call('POST', '/api/v1/runs', reader, { plan: payroll })).statusCode).toBe(403)
    expect(
      (await call('POST', '/api/v1/keys', undefined, { name: 'x', scopes: ['read'] })).statusCode,
    ).toBe(401)
  })

  it('stop working when revoked', async () => {
    const key = await makeKey('short-lived', ['read'])
    expect((await call('GET', '/api/v1/runs', key)).statusCode).toBe(200)
    expect((await call('DELETE', '/api/v1/keys/short-lived', adminToken)).statusCode).toBe(200)
    expect((await call('GET', '/api/v1/runs', key)).statusCode).toBe(401)
  })

  it('revokes the one key an id names, even when another key is named that id', async () => {
    const made = await call('POST', '/api/v1/keys', adminToken, { name: 'one', scopes: ['read'] })
    const { apiKey, key } = made.json()
    // A name may look like an id: another key, named after the first one's.
    const lookalike = await makeKey(apiKey.id, ['read'])
    expect((await call('DELETE', `/api/v1/keys/${apiKey.id}`, adminToken)).statusCode).toBe(200)
    expect((await call('GET', '/api/v1/runs', key)).statusCode).toBe(401)
    expect((await call('GET', '/api/v1/runs', lookalike)).statusCode).toBe(200)
    // Asked again, the id names no live key, so the name does.
    expect((await call('DELETE', `/api/v1/keys/${apiKey.id}`, adminToken)).statusCode).toBe(200)
    expect((await call('GET', '/api/v1/runs', lookalike)).statusCode).toBe(401)
  })
})

describe('a run belongs to the principal that started it', () => {
  it("hides another key's paused run: its inputs, events, answer, cancel, resume, books", async () => {
    const id = await pausedRunOf(alice)
    for (const [method, url, payload] of [
      ['GET', `/api/v1/runs/${id}`],
      ['GET', `/api/v1/runs/${id}/events`],
      ['GET', `/api/v1/runs/${id}/ledger`],
      ['GET', `/api/v1/runs/${id}/receipt`],
      ['GET', `/api/v1/ledger?runId=${id}`],
      ['POST', `/api/v1/runs/${id}/answer`, { answer: 'approved by bob' }],
      ['POST', `/api/v1/runs/${id}/cancel`],
      ['POST', `/api/v1/runs/${id}/resume`],
    ] as const) {
      const response = await call(method, url, bob, payload)
      expect(response.statusCode, `${method} ${url}`).toBe(404)
      expect(response.body).not.toContain('hunter2')
    }
    const listed = await call('GET', '/api/v1/runs', bob)
    expect(listed.json().runs.map((run: { id: string }) => run.id)).not.toContain(id)
    // Still paused, with alice's question: bob changed nothing.
    const own = (await call('GET', `/api/v1/runs/${id}`, alice)).json()
    expect(own).toMatchObject({
      status: 'paused',
      question: 'Approve payroll?',
      owner: expect.stringMatching(/^key:/),
    })
    expect(own.inputs).toEqual({ password: 'hunter2' })
  })

  it('lets its owner and the admin answer it, and nobody anonymous read it', async () => {
    const id = await pausedRunOf(alice)
    expect((await call('GET', `/api/v1/runs/${id}`)).statusCode).toBe(401)
    expect((await call('GET', `/api/v1/runs/${id}`, adminToken)).statusCode).toBe(200)
    expect(
      (await call('POST', `/api/v1/runs/${id}/answer`, alice, { answer: 'yes' })).statusCode,
    ).toBe(202)
    const done = await waitFor(async () => {
      const run = (await call('GET', `/api/v1/runs/${id}`, alice)).json()
      return run.status === 'done' ? run : undefined
    })
    expect(done.output).toBe('payroll: yes')
    const all = await call('GET', '/api/v1/runs?limit=200', adminToken)
    expect(all.json().runs.map((run: { id: string }) => run.id)).toContain(id)
  })

  it('keeps the server-wide books to the admin while reads are private', async () => {
    expect((await call('GET', '/api/v1/spend', bob)).statusCode).toBe(403)
    expect((await call('GET', '/api/v1/ledger', bob)).statusCode).toBe(403)
    expect((await call('GET', '/api/v1/spend', adminToken)).statusCode).toBe(200)
  })
})

describe('reads are private by default once a token exists', () => {
  it('refuses anonymous reads of runs, but keeps the agent directory and cards public', async () => {
    expect((await call('GET', '/api/v1/runs')).statusCode).toBe(401)
    expect((await call('GET', '/api/v1/escalations')).statusCode).toBe(401)
    for (const url of [
      '/api/v1/agents',
      '/api/v1/agents/0x4444444444444444444444444444444444444444',
      '/agent/0x4444444444444444444444444444444444444444',
      '/api/v1/agents/search?q=delegates',
      '/a2a/orchestrator/.well-known/agent-card.json',
      '/.well-known/agent-card.json',
    ]) {
      expect((await call('GET', url)).statusCode, url).toBe(200)
    }
  })
})

describe('trust tiers are granted by an admin, not claimed', () => {
  it('counts a registration asking "critical" at the default until an admin grants it', async () => {
    const accounts = newAgentAccounts()
    const agent = { ...accounts.agent, agentCard: { trustTier: 'critical' as const } }
    const body = await signAgentRegistration(agent, { ...accounts, registry: testRegistryId })
    expect((await call('POST', '/api/v1/agents', alice, body)).statusCode).toBe(201)
    const looked = await call('GET', `/agent/${agent.wallet}`)
    expect(looked.json().agentCard.trustTier).toBe('low')
    const detail = (await call('GET', `/api/v1/agents/${agent.wallet}`)).json()
    expect(detail.trust).toEqual({ requested: 'critical', granted: null, effective: 'low' })
    const search = async () =>
      (await call('GET', `/api/v1/agents/search?q=analysis&trustTier=high`))
        .json()
        .agents.map((match: { wallet: string }) => match.wallet)
    expect(await search()).not.toContain(agent.wallet)
    // A plan that needs a high tier is refused the self-promoted agent.
    const plan = {
      steps: [
        {
          op: 'delegate',
          agentWallet: agent.wallet,
          prompt: 'go',
          minTrustTier: 'high',
          saveAs: 'x',
        },
        { op: 'stop', output: '{{x}}' },
      ],
    }
    const { id } = (await call('POST', '/api/v1/runs', alice, { plan })).json()
    const failed = await waitFor(async () => {
      const run = (await call('GET', `/api/v1/runs/${id}`, alice)).json()
      return run.status === 'failed' ? run : undefined
    })
    expect(JSON.stringify(failed.error)).toMatch(/TRUST_TIER_TOO_LOW/)

    const url = `/api/v1/agents/${agent.wallet}/trust-tier`
    expect((await call('PUT', url, alice, { tier: 'critical' })).statusCode).toBe(403)
    const granted = await call('PUT', url, adminToken, { tier: 'critical' })
    expect(granted.json()).toMatchObject({
      requested: 'critical',
      granted: 'critical',
      effective: 'critical',
    })
    expect((await call('GET', `/agent/${agent.wallet}`)).json().agentCard.trustTier).toBe(
      'critical',
    )
    expect(await search()).toContain(agent.wallet)
  })

  it('keeps the tier a registration asked for through a change that does not set it', async () => {
    const accounts = newAgentAccounts()
    const agent = { ...accounts.agent, agentCard: { trustTier: 'high' as const } }
    const body = await signAgentRegistration(agent, { ...accounts, registry: testRegistryId })
    const registered = await call('POST', '/api/v1/agents', alice, body)
    // Every answer gives the tier the agent counts as, the registration's own among them.
    expect(registered.json().agent.agentCard.trustTier).toBe('low')
    const change = await signAgentChange('update', agent, {
      registry: testRegistryId,
      creator: accounts.creator,
      changes: { name: 'Renamed' },
    })
    const changed = await call('PATCH', `/api/v1/agents/${agent.wallet}`, alice, change)
    expect(changed.statusCode).toBe(200)
    expect(changed.json().agent).toMatchObject({ name: 'Renamed', agentCard: { trustTier: 'low' } })
    const detail = (await call('GET', `/api/v1/agents/${agent.wallet}`)).json()
    expect(detail.trust).toEqual({ requested: 'high', granted: null, effective: 'low' })
    // The change's record in the history is what the creator signed: the card as registered.
    expect(detail.history.at(-1)).toMatchObject({
      change: 'update',
      agent: { name: 'Renamed', agentCard: { trustTier: 'high' } },
    })
    // So a grant made after the change still raises it to what it asked.
    const url = `/api/v1/agents/${agent.wallet}/trust-tier`
    const granted = await call('PUT', url, adminToken, { tier: 'critical' })
    expect(granted.json()).toMatchObject({ requested: 'high', effective: 'high' })
    expect((await call('GET', `/agent/${agent.wallet}`)).json().agentCard.trustTier).toBe('high')
  })
})

describe('A2A tasks belong to the key that started them', () => {
  const client = (key: string): Promise<Client> =>
    new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({
          fetchImpl: (url, init) =>
            fetch(url, { ...init, headers: { ...(init?.headers as object), ...as(key) } }),
        }),
      ],
    }).createFromUrl(`${base}/a2a/analyst/.well-known/agent-card.json`, '')

  it("lists and gets only the caller's own tasks", async () => {
    const alices = await client(alice)
    const task = (await alices.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'secret' }] },
      }),
    )) as Task
    expect(task.id).toBeTruthy()
    const own = await alices.listTasks(ListTasksRequest.fromJSON({}))
    expect(own.tasks.map((each) => each.id)).toContain(task.id)
    const bobs = await client(bob)
    const listed = await bobs.listTasks(ListTasksRequest.fromJSON({}))
    expect(listed.tasks.map((each) => each.id)).not.toContain(task.id)
    await expect(bobs.getTask(GetTaskRequest.fromJSON({ id: task.id }))).rejects.toThrow()
  })
})

describe('bus conversations belong to the principal that started them', () => {
  it("carries the key as the sender, and keeps others out of the key's conversation", async () => {
    const sent = await call('POST', '/api/v1/messages', alice, {
      from: { agentId: 'whoever-i-say' },
      to: { agentId: 'tester' },
      content: 'private question',
    })
    expect(sent.statusCode).toBe(202)
    const { envelope } = sent.json()
    expect(envelope.from).toMatchObject({
      agentId: expect.stringMatching(/^key:/),
      agentName: 'alice',
    })
    const url = `/api/v1/conversations/${envelope.correlationId}`
    expect((await call('GET', url, alice)).statusCode).toBe(200)
    expect((await call('GET', url, bob)).statusCode).toBe(404)
    const intrusion = await call('POST', '/api/v1/messages', bob, {
      from: { agentId: 'bob' },
      to: { agentId: 'tester' },
      content: 'me too',
      correlationId: envelope.correlationId,
      hop: 1,
    })
    expect(intrusion.statusCode).toBe(404)
    // Only the host speaks for a hosted agent.
    const spoofed = await call('POST', '/api/v1/messages', bob, {
      from: { agentId: 'analyst' },
      to: { agentId: 'tester' },
      content: 'I am the analyst',
    })
    expect(spoofed.statusCode).toBe(403)
  })
})
