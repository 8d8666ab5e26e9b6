import { BatonError } from '@baton/core'
import { afterEach, describe, expect, it } from 'vitest'
import { analyst, critic, makeSwarm, ops, opsOrchestrator } from '../__fixtures__/agents'
import { sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import { swarmToAgent } from '../swarm-agent/swarm-to-agent'
import { AgentsUnavailableError } from './agents-unavailable-error'
import { createAgentStore } from './create-agent-store'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('createAgentStore', () => {
  it('loads GET {baseUrl}/agents from a real server and looks agents up', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, [analyst, ops]))
    const store = createAgentStore()
    const agents = await store.getState().load({ baseUrl: server.baseUrl })
    expect(server.requests).toEqual(['GET /agents'])
    expect(agents.map((agent) => agent.id)).toEqual(['analyst', 'ops-bot'])
    expect(store.getState().status).toBe('ready')
    expect(store.getState().getById('analyst')?.name).toBe('Analyst')
    expect(store.getState().getByName('  ops ')?.id).toBe('ops-bot')
  })

  it('reads { agents: [...] } and keeps a base path', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 200, { agents: [critic] }),
    )
    const store = createAgentStore()
    await store.getState().load({ baseUrl: `${server.baseUrl}/api/` })
    expect(server.requests).toEqual(['GET /api/agents'])
    expect(store.getState().agents).toEqual([critic])
  })

  it('rejects with AgentsUnavailableError and records it when the server answers 503', async () => {
    server = await startServer((_request, response) => sendJson(response, 503, { error: 'down' }))
    const store = createAgentStore([analyst])
    const loading = store.getState().load({ baseUrl: server.baseUrl })
    expect(store.getState().status).toBe('loading')
    await expect(loading).rejects.toThrow(AgentsUnavailableError)
    await expect(loading).rejects.toThrow(/answered 503/)
    expect(store.getState()).toMatchObject({
      status: 'error',
      error: { code: 'AGENTS_UNAVAILABLE' },
      agents: [analyst],
    })
  })

  it('rejects a body that is not JSON, and a closed port, as AgentsUnavailableError', async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end('<html>')
    })
    const store = createAgentStore()
    await expect(store.getState().load({ baseUrl: server.baseUrl })).rejects.toThrow(/not JSON/)
    const closed = server.baseUrl
    await server.close()
    server = undefined
    await expect(store.getState().load({ baseUrl: closed })).rejects.toThrow(/request failed/)
  })

  it('sends user info as Basic credentials and keeps it out of the error message', async () => {
    let authorization: string | undefined
    server = await startServer((request, response) => {
      authorization = request.headers.authorization
      sendJson(response, 500, {})
    })
    const base = server.baseUrl.replace('http://', 'http://user:secret@')
    const error = await createAgentStore()
      .getState()
      .load({ baseUrl: `${base}?token=abc` })
      .catch((caught: unknown) => caught)
    expect(BatonError.isInstance(error)).toBe(true)
    expect(String((error as Error).message)).not.toMatch(/secret|abc/)
    expect(String((error as Error).message)).toMatch(/answered 500/)
    expect(authorization).toBe(`Basic ${btoa('user:secret')}`)
  })

  it('refuses a list with an invalid agent, naming it, and keeps the old list', async () => {
    const store = createAgentStore([analyst])
    const bad = { ...critic, wallet: '0x123' }
    await expect(store.getState().load(async () => [ops, bad])).rejects.toThrow(
      /agents\[1\]: wallet/,
    )
    expect(store.getState().agents).toEqual([analyst])
    expect(store.getState().error?.code).toBe('VALIDATION_FAILED')
  })

  it('loads { agents } from a function and refuses anything that is not a list', async () => {
    const store = createAgentStore()
    await store.getState().load(async () => ({ agents: [critic] }))
    expect(store.getState().agents).toEqual([critic])
    await expect(store.getState().load(async () => 'nope')).rejects.toThrow(
      /expected a list of agents/,
    )
    expect(store.getState()).toMatchObject({
      agents: [critic],
      error: { code: 'VALIDATION_FAILED' },
    })
  })

  it('loads through a function and ignores an earlier load that answers last', async () => {
    const store = createAgentStore()
    let releaseSlow: (list: unknown[]) => void = () => {}
    const slow = store.getState().load(() => new Promise((resolve) => (releaseSlow = resolve)))
    await store.getState().load(async () => [critic])
    releaseSlow([analyst])
    await slow
    expect(store.getState().agents).toEqual([critic])
  })

  it('looks agents up by whole mention text, longest name first', () => {
    const store = createAgentStore([ops, opsOrchestrator])
    const state = store.getState()
    expect(state.getByMention('@Ops Orchestrator')?.id).toBe('ops')
    expect(state.getByMention('@ops')?.id).toBe('ops-bot')
    expect(state.getByMention('ops-bot')?.id).toBe('ops-bot')
    expect(state.getByMention('@Ops Orchestrator please')).toBeUndefined()
    expect(state.getByMention('@')).toBeUndefined()
  })

  it('refuses an agent id with the reserved swarm_ prefix, keeping what it had', () => {
    const store = createAgentStore([analyst])
    for (const agent of [
      swarmToAgent(makeSwarm({ id: 'research' })),
      { ...critic, id: 'swarm_critic' },
    ]) {
      expect(() => store.getState().upsertAgent(agent)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          message: expect.stringMatching(/agent: id: .*reserved for swarms/),
        }),
      )
      expect(() => store.getState().setAgents([critic, agent])).toThrow(/agents\[1\]: id: /)
    }
    expect(() => createAgentStore([{ ...critic, id: 'swarm_x' }])).toThrow(/reserved for swarms/)
    // Nothing stored was lost, and ordinary ids (even ones containing "swarm") still go in.
    expect(store.getState().agents).toEqual([analyst])
    store.getState().upsertAgent({ ...critic, id: 'my-swarm_critic' })
    expect(store.getState().getById('my-swarm_critic')).toBeDefined()
  })

  it('adds, replaces and removes agents', () => {
    const store = createAgentStore([analyst])
    store.getState().upsertAgent({ ...analyst, name: 'Senior Analyst' })
    store.getState().upsertAgent(critic)
    expect(store.getState().agents.map((agent) => agent.name)).toEqual(['Senior Analyst', 'Critic'])
    expect(store.getState().removeAgent('analyst')).toBe(true)
    expect(store.getState().removeAgent('analyst')).toBe(false)
    expect(store.getState().agents).toEqual([critic])
  })
})
