import { randomUUID } from 'node:crypto'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { HttpError } from '../http/http-errors'

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

/** Sessions one process keeps open at once; the oldest is closed past it. */
const MAX_SESSIONS = 256

/**
 * `/mcp`: Baton as an MCP server over Streamable HTTP (the SDK's transport, one session per
 * client), behind the same token and rate limit as the HTTP API.
 *
 * @example
 * await app.register(mcpPlugin)
 */
export async function mcpPlugin(app: FastifyInstance): Promise<void> {
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; principal: string }
  >()

  const sessionOf = (request: FastifyRequest) => {
    const id = request.headers['mcp-session-id']
    const session = typeof id === 'string' ? sessions.get(id) : undefined
    // A session is its initializer's: another credential cannot ride on its id.
    if (session && session.principal !== request.principal.id) {
      throw new HttpError(403, 'FORBIDDEN', 'This MCP session belongs to another principal.')
    }
    return session?.transport
  }

  const hand = async (
    request: FastifyRequest,
    reply: FastifyReply,
    transport: StreamableHTTPServerTransport,
  ) => {
    reply.hijack()
    await transport.handleRequest(request.raw, reply.raw, request.body)
  }

  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const existing = sessionOf(request)
    if (existing) return hand(request, reply, existing)
    const [{ StreamableHTTPServerTransport }, { isInitializeRequest }, { createBatonMcpServer }] =
      await loadMcp()
    if (request.headers['mcp-session-id'] !== undefined || !isInitializeRequest(request.body)) {
      throw new HttpError(
        400,
        'MCP_SESSION_UNKNOWN',
        'No MCP session with this id: start one with an initialize request.',
      )
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Each call answers as an event stream, so the progress of a long delegate or run_plan
      // reaches the client while it runs; a JSON answer would drop it (the progress test fails).
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, principal: request.principal.id })
        if (sessions.size > MAX_SESSIONS) {
          const [oldest] = sessions.keys()
          if (oldest) void sessions.get(oldest)?.transport.close()
        }
      },
    })
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
    }
    await createBatonMcpServer(app.baton, {
      principal: request.principal,
      readsArePublic: request.readsArePublic,
    }).connect(transport)
    return hand(request, reply, transport)
  })

  const existingOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    const transport = sessionOf(request)
    if (!transport) throw new HttpError(404, 'MCP_SESSION_UNKNOWN', 'No MCP session with this id.')
    return hand(request, reply, transport)
  }
  app.get('/mcp', { schema: { hide: true } }, existingOnly)
  app.delete('/mcp', { schema: { hide: true } }, existingOnly)

  app.addHook('preClose', async () => {
    await Promise.all([...sessions.values()].map((session) => session.transport.close()))
  })
}
