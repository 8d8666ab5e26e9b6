import { randomUUID } from 'node:crypto'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Principal } from '../auth/principal'
import { HttpError } from '../http/http-errors'
import { invalidMcpParams, refuseInvalidMcpParams } from './invalid-mcp-params'

// The MCP SDK (~7 MB of heap and code) is loaded by the first MCP request, not at start: a
// server nobody reaches over MCP does not hold it.
let mcpModules:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
        typeof import('@modelcontextprotocol/sdk/types.js'),
        typeof import('./create-baton-mcp-server'),
      ]
    >
  | undefined
const loadMcp = () => {
  mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./create-baton-mcp-server'),
  ])
  return mcpModules
}

/**
 * Sessions one process keeps open at once. Past it, a new session closes the one used least
 * recently that has no request in flight; when every one has, it is refused (503).
 */
const MAX_SESSIONS = 256
/**
 * Sessions one API key keeps open at once: past it, its own least recently used session is
 * closed. So no key can push another's sessions out by opening many of its own. (The admin
 * token is the operator's, and an anonymous caller exists only on an open server, where
 * callers cannot be told apart: those have the server's whole bound.)
 */
const MAX_SESSIONS_PER_KEY = 32

type Session = {
  transport: StreamableHTTPServerTransport
  /** Whether the session's server answers `method` (else the SDK answers -32601). */
  answers(method: string): boolean
  principal: string
  /** Requests of the session being answered (a long call, an open event stream). */
  inFlight: number
}

/**
 * `/mcp`: Baton as an MCP server over Streamable HTTP (the SDK's transport, one session per
 * client), behind the same token and rate limit as the HTTP API.
 *
 * @example
 * await app.register(mcpPlugin)
 */
export async function mcpPlugin(app: FastifyInstance): Promise<void> {
  // Least recently used first: a request moves its session to the end.
  const sessions = new Map<string, Session>()

  const sessionOf = (request: FastifyRequest) => {
    const id = request.headers['mcp-session-id']
    const session = typeof id === 'string' ? sessions.get(id) : undefined
    if (!session) return undefined
    // A session is its initializer's: another credential cannot ride on its id.
    if (session.principal !== request.principal.id) {
      throw new HttpError(403, 'FORBIDDEN', 'This MCP session belongs to another principal.')
    }
    sessions.delete(id as string)
    sessions.set(id as string, session)
    return session
  }

  /** Makes room for a session of `principal`, or refuses it when every session is busy. */
  const makeRoom = (principal: Principal) => {
    if (principal.kind === 'key') {
      const own = [...sessions.values()].filter((session) => session.principal === principal.id)
      for (const session of own.slice(0, Math.max(0, own.length - MAX_SESSIONS_PER_KEY + 1))) {
        close(session)
      }
    }
    if (sessions.size < MAX_SESSIONS) return
    for (const session of sessions.values()) {
      if (session.inFlight === 0) return close(session)
    }
    throw new HttpError(
      503,
      'MCP_SESSIONS_FULL',
      `This server has ${MAX_SESSIONS} MCP sessions open, each answering a request: close one, or try again later.`,
    )
  }
  const close = (session: Session) => {
    // Gone from the map at once: room is made now, not when the transport's close settles.
    if (session.transport.sessionId) sessions.delete(session.transport.sessionId)
    void session.transport.close()
  }

  const hand = async (
    request: FastifyRequest,
    reply: FastifyReply,
    transport: StreamableHTTPServerTransport,
    session: Session | undefined,
  ) => {
    reply.hijack()
    if (session) {
      session.inFlight += 1
      reply.raw.once('close', () => {
        session.inFlight -= 1
      })
    }
    await transport.handleRequest(request.raw, reply.raw, request.body)
  }

  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    // An empty JSON body reaches the routes as none; the transport would read the request
    // again for one, and it has been read.
    if (request.body === undefined) {
      throw new HttpError(
        400,
        'BAD_REQUEST',
        'An MCP request carries a JSON-RPC message as its body; this one has none.',
        { field: 'body' },
      )
    }
    const existing = sessionOf(request)
    const [{ StreamableHTTPServerTransport }, types, { createBatonMcpServer }] = await loadMcp()
    // A request its session (or the one it starts) answers, but whose params are not what its
    // method takes: -32602 naming the field (the SDK's dispatch would answer -32603, and its
    // transport -32700 for a bad `_meta`). A batch's requests are checked one by one as the
    // transport hands them on (`refuseInvalidMcpParams`).
    const starts =
      request.headers['mcp-session-id'] === undefined &&
      (request.body as { method?: unknown } | null)?.method === 'initialize'
    const checkedBy = existing?.answers ?? (starts ? () => true : undefined)
    const invalid = checkedBy && invalidMcpParams(types, request.body, checkedBy)
    if (invalid) return reply.type('application/json').send(invalid)
    if (existing) return hand(request, reply, existing.transport, existing)
    if (!starts || !types.isInitializeRequest(request.body)) {
      throw new HttpError(
        400,
        'MCP_SESSION_UNKNOWN',
        'No MCP session with this id: start one with an initialize request.',
      )
    }
    const principal = request.principal.id
    makeRoom(request.principal)
    const server = createBatonMcpServer(app.baton, {
      principal: request.principal,
      readsArePublic: request.readsArePublic,
      // The session outlives this request: its tools' faults are logged on the server's log.
      log: app.log,
    })
    const answers = (method: string) => {
      // The SDK's public test of a method without a handler: it throws for one that has.
      try {
        server.server.assertCanSetRequestHandler(method)
        return false
      } catch {
        return true
      }
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Each call answers as an event stream, so the progress of a long delegate or run_plan
      // reaches the client while it runs; a JSON answer would drop it (the progress test fails).
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, answers, principal, inFlight: 0 })
      },
    })
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    refuseInvalidMcpParams(transport, types, answers)
    return hand(request, reply, transport, undefined)
  })

  const existingOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = sessionOf(request)
    if (!session) throw new HttpError(404, 'MCP_SESSION_UNKNOWN', 'No MCP session with this id.')
    return hand(request, reply, session.transport, session)
  }
  app.get('/mcp', { schema: { hide: true } }, existingOnly)
  app.delete('/mcp', { schema: { hide: true } }, existingOnly)

  app.addHook('preClose', async () => {
    await Promise.all([...sessions.values()].map((session) => session.transport.close()))
  })
}
