import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { signAgentRegistration } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'

type Envelope = { type: string; content: string; correlationId: string }

/** An internal service on 127.0.0.1 that counts every connection made to it. */
async function internalService() {
  const state = { connections: 0, requests: 0 }
  const server: Server = createServer((_request, response) => {
    state.requests++
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end('{"secret":"INTERNAL-ONLY"}')
  })
  server.on('connection', () => {
    state.connections++
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { state, server, port: (server.address() as AddressInfo).port }
}

describe('agent endpoints on internal addresses', () => {
  let app: FastifyInstance
  let internal: Awaited<ReturnType<typeof internalService>>
  let redirector: Server
  let redirectorPort: number
  beforeAll(async () => {
    internal = await internalService()
    redirector = createServer((request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${internal.port}${request.url}` })
      response.end()
    })
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
    redirectorPort = (redirector.address() as AddressInfo).port
    app = await createTestApp({ allowPrivateEndpoints: false })
  })
  afterAll(async () => {
    await app.close()
    internal.server.close()
    redirector.close()
  })

  /** Registers an agent at `endpoint`, messages it on the bus, and returns its reply. */
  async function ask(endpoint: string, target: FastifyInstance = app): Promise<string> {
    const accounts = newAgentAccounts()
    const agent = { ...accounts.agent, endpoint }
    const registered = await target.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: await signAgentRegistration(agent, { ...accounts, registry: testRegistryId }),
    })
    expect(registered.statusCode).toBe(201)
    const sent = await target.inject({
      method: 'POST',
      url: '/api/v1/messages',
      payload: { from: { agentId: 'person' }, to: { agentId: agent.id }, content: 'hello' },
    })
    expect(sent.statusCode).toBe(202)
    const { correlationId } = sent.json().envelope as Envelope
    const reply = await waitFor(async () => {
      const read = await target.inject({
        method: 'GET',
        url: `/api/v1/conversations/${correlationId}`,
      })
      return (read.json().messages as Envelope[]).find((message) => message.type === 'reply')
    })
    return reply.content
  }

  it('never connects to loopback, by address or by a name that resolves to it', async () => {
    const card = '/.well-known/agent-card.json'
    for (const endpoint of [
      `http://127.0.0.1:${internal.port}/a2a`,
      `http://127.0.0.1:${internal.port}${card}`,
      `http://localhost:${internal.port}${card}`,
      `http://[::ffff:127.0.0.1]:${internal.port}/a2a`,
      `http://[::1]:${internal.port}/a2a`,
      `http://0.0.0.0:${internal.port}/a2a`,
    ]) {
      const reply = await ask(endpoint)
      expect(reply, endpoint).toMatch(/^\[error\] .*internal address/)
      expect(reply).not.toContain('INTERNAL-ONLY')
    }
    expect(internal.state.connections).toBe(0)
  })

  it('refuses a MAL delegate to an internal endpoint the same way, reaching nothing', async () => {
    const accounts = newAgentAccounts()
    const agent = {
      ...accounts.agent,
      endpoint: `http://localhost:${internal.port}/.well-known/agent-card.json`,
    }
    const registered = await app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: await signAgentRegistration(agent, { ...accounts, registry: testRegistryId }),
    })
    expect(registered.statusCode).toBe(201)
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: {
        plan: {
          steps: [{ op: 'delegate', saveAs: 'a', agentWallet: agent.wallet, prompt: 'hello' }],
        },
      },
    })
    expect(started.statusCode).toBe(202)
    const run = await waitFor(async () => {
      const read = (
        await app.inject({ method: 'GET', url: `/api/v1/runs/${started.json().id}` })
      ).json()
      return ['queued', 'running'].includes(read.status) ? undefined : read
    })
    expect(run.status).toBe('failed')
    expect(JSON.stringify(run)).toMatch(/ENDPOINT_REFUSED|internal address/)
    expect(JSON.stringify(run)).not.toContain('INTERNAL-ONLY')
    expect(internal.state.connections).toBe(0)
  })

  it('refuses the cloud metadata address without reaching it', async () => {
    const reply = await ask('http://169.254.169.254/latest/meta-data/')
    expect(reply).toMatch(/^\[error\] .*169\.254\.169\.254 .*internal address/)
  })

  it('with private endpoints allowed, still follows no redirect to an internal host', async () => {
    const open = await createTestApp({ allowPrivateEndpoints: true })
    try {
      const before = internal.state.connections
      const reply = await ask(`http://127.0.0.1:${redirectorPort}/a2a`, open)
      expect(reply).toMatch(/^\[error\] .*HTTP 302/)
      expect(internal.state.connections).toBe(before)
    } finally {
      await open.close()
    }
  })
})
