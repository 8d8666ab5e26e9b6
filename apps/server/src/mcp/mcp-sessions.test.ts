import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { makeApiKey } from '../__fixtures__/api-keys'
import { listenTestApp } from '../__fixtures__/listen-test-app'

// Many parties on one server's `/mcp`: a key that opens sessions without end must not close
// another's, and a session answering a request is not closed to make room.
const adminToken = 'mcp-sessions-admin-token-0123456789'
let app: FastifyInstance
let url: URL
const clients: Client[] = []

const makeKey = (name: string) => makeApiKey(app, adminToken, name)

async function connect(key: string) {
  const client = new Client({ name: 'sessions-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  })
  await client.connect(transport)
  clients.push(client)
  return { client, sessionId: transport.sessionId! }
}

const mcpHeaders = (key: string, sessionId?: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(sessionId
    ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }
    : {}),
})

/** One `initialize` by hand, as `name`: the answer (a 200 names the session it opened). */
const postInitialize = (key: string, name = 'flood') =>
  fetch(url, {
    method: 'POST',
    headers: mcpHeaders(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name, version: '1.0.0' },
      },
    }),
  })

/** One `initialize`, by hand: the id of the session it opened. */
async function initialize(key: string): Promise<string> {
  const response = await postInitialize(key)
  expect(response.status).toBe(200)
  await response.text()
  return response.headers.get('mcp-session-id')!
}

/** A `tools/list` on a session by hand: its status and, on an error, its code. */
async function listOn(key: string, sessionId: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: mcpHeaders(key, sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  })
  const body = await response.text()
  return {
    status: response.status,
    code: response.ok ? undefined : (JSON.parse(body) as { error: { code: string } }).error.code,
  }
}

beforeAll(async () => {
  ;({ app } = await listenTestApp({
    settings: { apiToken: adminToken, rateLimit: { max: 100_000, windowMs: 60_000 } },
  }).then(({ app, base }) => {
    url = new URL('/mcp', base)
    return { app }
  }))
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})))
  await app?.close()
})

describe('/mcp sessions among many parties', () => {
  it("keeps another key's session when one key opens 300: a key keeps its 32 most recently used", async () => {
    const [alice, bob] = [await makeKey('alice'), await makeKey('bob')]
    const { client } = await connect(bob)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)

    const flood: string[] = []
    for (let index = 0; index < 300; index += 1) flood.push(await initialize(alice))
    // Bob's session is still his, and still answers.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    // Alice's oldest went to make room for her newest; her 32 latest answer.
    expect(await listOn(alice, flood[0]!)).toEqual({ status: 400, code: 'MCP_SESSION_UNKNOWN' })
    expect(await listOn(alice, flood[300 - 33]!)).toEqual({
      status: 400,
      code: 'MCP_SESSION_UNKNOWN',
    })
    expect(await listOn(alice, flood[300 - 32]!)).toEqual({ status: 200, code: undefined })
    expect(await listOn(alice, flood.at(-1)!)).toEqual({ status: 200, code: undefined })
  }, 60_000)

  it('refuses a session id to any other principal than the one that opened it', async () => {
    const [carol, dave] = [await makeKey('carol'), await makeKey('dave')]
    const { sessionId } = await connect(carol)
    expect(await listOn(dave, sessionId)).toEqual({ status: 403, code: 'FORBIDDEN' })
    expect(await listOn(carol, sessionId)).toEqual({ status: 200, code: undefined })
  })

  // A client's wrapper that sends `Content-Type: application/json` with nothing after it: a
  // clear refusal at once, not a request the transport waits on for a body already read.
  it('refuses an empty body on a session with 400 at once, and the session still answers', async () => {
    const gina = await makeKey('gina')
    const { sessionId } = await connect(gina)
    const response = await fetch(url, {
      method: 'POST',
      headers: mcpHeaders(gina, sessionId),
      signal: AbortSignal.timeout(5_000),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: unknown }).error).toEqual({
      code: 'BAD_REQUEST',
      message: 'An MCP request carries a JSON-RPC message as its body; this one has none.',
      details: { field: 'body' },
    })
    expect(await listOn(gina, sessionId)).toEqual({ status: 200, code: undefined })
  })

  it('at the bound, closes the least recently used session that answers no request, never a busy one', async () => {
    // Busy: an open event stream (GET) keeps a request of the session in flight.
    const erin = await makeKey('erin')
    const busy = await initialize(erin)
    const stream = new AbortController()
    const listening = await fetch(url, {
      method: 'GET',
      headers: mcpHeaders(erin, busy),
      signal: stream.signal,
    })
    expect(listening.status).toBe(200)
    try {
      // Idle, and used after the busy one opened: older by use than everything that follows.
      const frank = await makeKey('frank')
      const idle = await initialize(frank)
      // Eight keys of 32 sessions each fill the server's 256 (with the sessions above and
      // those of the tests before, less what the bound closes).
      for (let key = 0; key < 8; key += 1) {
        const filler = await makeKey(`filler-${key}`)
        for (let index = 0; index < 32; index += 1) await initialize(filler)
      }
      expect(await listOn(frank, idle)).toEqual({ status: 400, code: 'MCP_SESSION_UNKNOWN' })
      expect(await listOn(erin, busy)).toEqual({ status: 200, code: undefined })
    } finally {
      stream.abort()
      // Held until here: a response nobody holds may be collected, and its stream closed.
      expect(listening.ok).toBe(true)
    }
  }, 60_000)

  it('refuses a new session with 503 when every session open answers a request, and takes one again once a stream ends', async () => {
    const streams: AbortController[] = []
    // Held until the end: a response nobody holds may be collected, and its stream closed.
    const open: Response[] = []
    const listen = async (key: string, sessionId: string) => {
      const stream = new AbortController()
      streams.push(stream)
      const response = await fetch(url, {
        method: 'GET',
        headers: mcpHeaders(key, sessionId),
        signal: stream.signal,
      })
      expect(response.status).toBe(200)
      open.push(response)
    }
    let current = ''
    try {
      let refused: Response | undefined
      // Each new session is made busy at once: the idle ones of the tests before go first.
      for (let index = 0; index < 400 && !refused; index += 1) {
        if (index % 32 === 0) current = await makeKey(`busy-${index}`)
        const response = await postInitialize(current, 'busy')
        if (response.status === 503) {
          refused = response
          break
        }
        await response.text()
        await listen(current, response.headers.get('mcp-session-id')!)
      }
      expect(refused?.status).toBe(503)
      expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe(
        'MCP_SESSIONS_FULL',
      )
      // A stream ends: its session is idle again, and makes room for a new one.
      streams[0]!.abort()
      const key = await makeKey('after-the-stream')
      await vi.waitFor(async () => expect(await initialize(key)).toMatch(/.+/), { timeout: 5_000 })
    } finally {
      for (const stream of streams) stream.abort()
      expect(open.length).toBeGreaterThan(0)
    }
  }, 60_000)
})
