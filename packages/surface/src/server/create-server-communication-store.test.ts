import type { ServerResponse } from 'node:http'
import type { Envelope, Escalation } from '@baton/comm'
import { afterEach, describe, expect, it } from 'vitest'
import { opsOrchestrator } from '../__fixtures__/agents'
import { readBody, sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import { createAdvancedAgentStore } from '../advanced-agent-store/create-advanced-agent-store'
import { createAgentStore } from '../agent-store/create-agent-store'
import { createDelegation } from '../delegation/create-delegation'
import { createServerCommunicationStore } from './create-server-communication-store'

let server: TestServer | undefined
const stores: { getState(): { detach(): void } }[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) store.getState().detach()
  await server?.close()
  server = undefined
})

function waitFor(check: () => boolean, what: string): Promise<void> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (check()) return resolve()
      if (Date.now() - started > 10_000) return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(poll, 10)
    }
    poll()
  })
}

function envelope(overrides: Partial<Envelope> = {}): Envelope {
  return {
    id: 'm1',
    from: { agentId: 'user' },
    to: { agentId: 'ops-orchestrator' },
    content: 'review the incidents',
    type: 'direct',
    correlationId: 'c1',
    hop: 0,
    createdAt: '2026-12-01T08:00:00.000Z',
    ...overrides,
  }
}

const escalation: Escalation = {
  id: 'e1',
  correlationId: 'c1',
  hops: 4,
  path: ['a', 'b', 'a', 'b'],
  lastMessage: envelope({ id: 'm5', hop: 5 }),
  status: 'open',
  createdAt: '2026-12-01T08:00:01.000Z',
}

/** A server speaking the bus part of the Baton HTTP API, with a stream the test writes to. */
async function busServer(options: { refuseSend?: boolean } = {}) {
  const streams: ServerResponse[] = []
  const posted: unknown[] = []
  let escalations: Escalation[] = []
  server = await startServer(async (request, response) => {
    const url = request.url ?? ''
    if (url === '/api/v1/messages/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(': open\n\n')
      streams.push(response)
      return
    }
    if (url === '/api/v1/escalations') return sendJson(response, 200, { escalations })
    const body = await readBody(request)
    posted.push({ url, body })
    if (url === '/api/v1/messages' && options.refuseSend) {
      return sendJson(response, 409, {
        error: {
          code: 'LOOP_GUARD_ESCALATED',
          message: 'Correlation "c1" went past its hop limit after 4 hops.',
          details: { correlationId: 'c1', held: true, escalationId: 'e1', hops: 4 },
        },
      })
    }
    if (url === '/api/v1/messages') {
      const input = body as Envelope
      return sendJson(response, 202, { envelope: envelope({ ...input, id: `m${posted.length}` }) })
    }
    if (url === '/api/v1/escalations/e1/allow') {
      escalations = [{ ...escalation, status: 'allowed', extraHops: 2 }]
      return sendJson(response, 200, { escalation: escalations[0] })
    }
    sendJson(response, 404, { error: { code: 'NOT_FOUND', message: 'no route' } })
  })
  const write = (event: string, data: unknown) => {
    for (const stream of streams) stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }
  return {
    posted,
    streams,
    write,
    setEscalations: (list: Escalation[]) => {
      escalations = list
    },
  }
}

describe('createServerCommunicationStore', () => {
  it('posts a sent message to the server and keeps the envelope it answers', async () => {
    const bus = await busServer()
    const comm = createServerCommunicationStore({ baseUrl: server!.baseUrl, live: false })
    stores.push(comm)
    const sent = await comm.getState().send({
      from: { agentId: 'user' },
      to: { agentId: 'ops-orchestrator' },
      content: 'review the incidents',
    })
    expect(bus.posted).toEqual([
      {
        url: '/api/v1/messages',
        body: {
          from: { agentId: 'user' },
          to: { agentId: 'ops-orchestrator' },
          content: 'review the incidents',
        },
      },
    ])
    expect(comm.getState().correlations.get(sent.correlationId)?.messages).toEqual([sent])
  })

  it('adds the messages the live stream brings once each, in hop order, with the highest hop', async () => {
    const bus = await busServer()
    const comm = createServerCommunicationStore({ baseUrl: server!.baseUrl, retryMs: 20 })
    stores.push(comm)
    await waitFor(() => comm.getState().connection.state === 'open', 'the stream to open')
    await waitFor(() => bus.streams.length === 1, 'the server to hold the stream')
    const reply = envelope({
      id: 'm2',
      type: 'reply',
      hop: 1,
      from: { agentId: 'ops-orchestrator' },
      to: { agentId: 'user' },
    })
    bus.write('message', reply)
    bus.write('message', envelope())
    bus.write('message', reply)
    await waitFor(
      () => comm.getState().correlations.get('c1')?.messages.length === 2,
      'two messages',
    )
    const view = comm.getState().correlations.get('c1')!
    expect(view.messages.map((message) => message.id)).toEqual(['m1', 'm2'])
    expect(view.hops).toBe(1)
  })

  it('keeps a reply being written as a draft from the delta events, until the reply comes', async () => {
    const bus = await busServer()
    const comm = createServerCommunicationStore({ baseUrl: server!.baseUrl, retryMs: 20 })
    stores.push(comm)
    await waitFor(() => comm.getState().connection.state === 'open', 'the stream to open')
    await waitFor(() => bus.streams.length === 1, 'the server to hold the stream')
    const piece = (text: string) => ({
      correlationId: 'c1',
      inReplyTo: 'm1',
      from: { agentId: 'ops-orchestrator' },
      to: { agentId: 'user' },
      text,
    })
    bus.write('delta', piece('Two risks'))
    bus.write('delta', piece(' found'))
    bus.write('delta', { text: 'not a delta' })
    await waitFor(
      () => comm.getState().replyDrafts.get('m1')?.text === 'Two risks found',
      'the draft so far',
    )
    expect(comm.getState().replyDrafts.get('m1')).toMatchObject({ correlationId: 'c1' })
    const reply = envelope({
      id: 'm2',
      type: 'reply',
      hop: 1,
      inReplyTo: 'm1',
      content: 'Two risks found.',
      from: { agentId: 'ops-orchestrator' },
      to: { agentId: 'user' },
    })
    bus.write('message', reply)
    await waitFor(() => comm.getState().replyDrafts.size === 0, 'the draft to give way')
    // A piece that arrives after its reply does not start a draft again.
    bus.write('delta', piece(' late'))
    bus.write('message', envelope({ id: 'm3', correlationId: 'c2' }))
    await waitFor(() => comm.getState().correlations.has('c2'), 'the next message')
    expect(comm.getState().replyDrafts.size).toBe(0)
  })

  it('reads the escalations again when the stream says one was raised, and allows through the server', async () => {
    const bus = await busServer()
    const comm = createServerCommunicationStore({ baseUrl: server!.baseUrl, retryMs: 20 })
    stores.push(comm)
    await waitFor(() => bus.streams.length === 1, 'the stream')
    bus.setEscalations([escalation])
    bus.write('escalation', escalation)
    await waitFor(() => comm.getState().escalations.length === 1, 'the escalation')
    const allowed = await comm.getState().allow('e1', 2)
    expect(allowed).toMatchObject({ id: 'e1', status: 'allowed', extraHops: 2 })
    expect(bus.posted).toContainEqual({
      url: '/api/v1/escalations/e1/allow',
      body: { extraHops: 2 },
    })
    expect(comm.getState().escalations[0]?.status).toBe('allowed')
  })

  it('allows or stops an escalation once when the first answer is lost: the retry carries the same Idempotency-Key', async () => {
    // The server decides, then the connection is cut before its answer: the store asks again
    // with the same key, which the server answers with its first answer.
    const tries = new Map<string, (string | undefined)[]>()
    server = await startServer(async (request, response) => {
      const url = request.url ?? ''
      if (url === '/api/v1/escalations') return sendJson(response, 200, { escalations: [] })
      const body = (await readBody(request)) as { reason?: string }
      const keys = tries.get(url) ?? []
      tries.set(url, keys)
      keys.push(request.headers['idempotency-key'] as string | undefined)
      if (keys.length === 1) return request.socket.destroy()
      const decided = url.endsWith('/allow')
        ? { ...escalation, status: 'allowed', extraHops: 2 }
        : { ...escalation, status: 'stopped', reason: body.reason }
      sendJson(response, 200, { escalation: decided })
    })
    const comm = createServerCommunicationStore({ baseUrl: server.baseUrl, live: false })
    stores.push(comm)
    await expect(comm.getState().allow('e1', 2)).resolves.toMatchObject({ status: 'allowed' })
    await expect(comm.getState().stop('e1', 'enough')).resolves.toMatchObject({
      status: 'stopped',
      reason: 'enough',
    })
    for (const path of ['/api/v1/escalations/e1/allow', '/api/v1/escalations/e1/stop']) {
      const keys = tries.get(path)
      expect(keys).toHaveLength(2)
      expect(keys?.[0]).toMatch(/^create_/)
      expect(keys?.[1]).toBe(keys?.[0])
    }
  })

  it('lets useA2ADelegation report a message the server held as held, with its escalation', async () => {
    await busServer({ refuseSend: true })
    const comm = createServerCommunicationStore({ baseUrl: server!.baseUrl, live: false })
    stores.push(comm)
    const delegation = createDelegation({
      agents: createAgentStore([opsOrchestrator]),
      swarms: createAdvancedAgentStore(),
      comm,
    })
    const result = await delegation.delegate('user', opsOrchestrator.id, 'go round again')
    expect(result).toMatchObject({
      success: true,
      held: true,
      escalationId: 'e1',
      correlationId: 'c1',
      errorCode: 'LOOP_GUARD_ESCALATED',
    })
  })

  it('says why when the server is down, and keeps what it had', async () => {
    const comm = createServerCommunicationStore({
      baseUrl: 'http://127.0.0.1:9',
      live: false,
      retryForMs: 500,
    })
    stores.push(comm)
    await expect(
      comm.getState().send({ from: { agentId: 'user' }, to: { agentId: 'x' }, content: 'hi' }),
    ).rejects.toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      message: expect.stringMatching(
        /POST http:\/\/127\.0\.0\.1:9\/api\/v1\/messages: request failed .*; tried \d+ times/,
      ),
    })
    expect(comm.getState().correlations.size).toBe(0)
  })
})
