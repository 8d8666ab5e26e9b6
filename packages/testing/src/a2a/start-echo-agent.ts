import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentCard, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'
import { echoCard } from './echo-card'
import { createEchoExecutor, type EchoExecutorOptions } from './echo-executor'

export type EchoAgent = {
  /** Where its card is served. */
  cardUrl: string
  /** The JSON-RPC methods it was called with, in order (the `node-http` mount only). */
  methods: string[]
  /** The texts it was sent. */
  received: string[]
  /** Ids of the tasks a client cancelled. */
  cancelled: string[]
  close(): Promise<void>
}

export type EchoAgentOptions = EchoExecutorOptions & {
  /**
   * `node-http` (default): the SDK's JSON-RPC transport handlers (protocol 1.0 and 0.3) on plain
   * `node:http`, named "SDK echo agent". `express`: the SDK's own Express handlers (protocol
   * 1.0), named "Express echo agent": an A2A agent as a third party would deploy it.
   */
  mount?: 'node-http' | 'express'
  /** Whether its card says it streams (default true). */
  streaming?: boolean
  /**
   * Closes each stream's connection after this many events, unanswered past them (the agent's
   * process restarting, a proxy's idle timeout); its task goes on (the `node-http` mount only).
   */
  cutStreamsAfter?: number
  /** The port it listens on, on 127.0.0.1 (default: a free one). */
  port?: number
}

/**
 * A reference A2A agent that is not Baton, made only of the SDK's own server pieces
 * (`DefaultRequestHandler`, an in-memory task store) on 127.0.0.1 and a free port: it answers
 * every message with a task whose artifact is `echo: <text>`.
 *
 * @example
 * const agent = await startEchoAgent({ streaming: false, workMs: 50 })
 * await sendA2AMessage({ endpoint: agent.cardUrl, text: 'hi' })
 * await agent.close()
 */
export async function startEchoAgent(options: EchoAgentOptions = {}): Promise<EchoAgent> {
  const mount = options.mount ?? 'node-http'
  const echo = createEchoExecutor({
    artifactId: mount === 'express' ? 'echo' : 'answer',
    ...options,
  })
  const methods: string[] = []
  let url = ''
  const card = () =>
    echoCard({
      name: mount === 'express' ? 'Express echo agent' : 'SDK echo agent',
      url,
      versions: mount === 'express' ? ['1.0'] : ['1.0', '0.3'],
      streaming: options.streaming ?? true,
    })
  let handler: DefaultRequestHandler | undefined
  const requestHandler = () => {
    handler ??= new DefaultRequestHandler(card(), new InMemoryTaskStore(), echo.executor)
    return handler
  }
  const server =
    mount === 'express'
      ? await listenExpress(card, requestHandler, options.port ?? 0)
      : await listen(
          createServer(
            nodeHttpHandler({
              card,
              requestHandler,
              methods,
              cutStreamsAfter: options.cutStreamsAfter,
            }),
          ),
          options.port ?? 0,
        )
  const { port } = server.address() as AddressInfo
  url = `http://127.0.0.1:${port}/rpc`
  return {
    cardUrl: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    methods,
    received: echo.received,
    cancelled: echo.cancelled,
    close: async () => {
      echo.abortAll()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function listen(server: Server, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

function listenExpress(
  card: () => AgentCard,
  requestHandler: () => DefaultRequestHandler,
  port: number,
): Promise<Server> {
  const app = express()
  app.use(
    '/.well-known/agent-card.json',
    agentCardHandler({ agentCardProvider: async () => card() }),
  )
  app.use(
    '/rpc',
    jsonRpcHandler({ requestHandler: requestHandler(), userBuilder: UserBuilder.noAuthentication }),
  )
  return new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening))
  })
}

function nodeHttpHandler({
  card,
  requestHandler,
  methods,
  cutStreamsAfter,
}: {
  card: () => AgentCard
  requestHandler: () => DefaultRequestHandler
  methods: string[]
  cutStreamsAfter: number | undefined
}): Parameters<typeof createServer>[1] {
  return (request, response) => {
    void (async () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(AgentCard.toJSON(card())))
        return
      }
      const body = JSON.parse(await readBody(request)) as { method: string; id: unknown }
      methods.push(body.method)
      const version = request.headers['a2a-version']
      const requestedVersion = typeof version === 'string' ? version : undefined
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new UnauthenticatedUser(),
        headers: request.headers,
        requestedVersion,
      })
      validateVersion(context.requestedVersion, card(), 'JSONRPC')
      const transport =
        (requestedVersion ?? '0.3') === '0.3'
          ? new LegacyJsonRpcTransportHandler(requestHandler())
          : new JsonRpcTransportHandler(requestHandler())
      const answer = await transport.handle(body, context)
      if (Symbol.asyncIterator in answer) {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        try {
          let sent = 0
          for await (const event of answer) {
            // Past the cut the events are still read (so the task goes on, as it would behind
            // a connection that died), and written nowhere.
            if (cutStreamsAfter !== undefined && sent >= cutStreamsAfter) {
              if (!response.destroyed) {
                // Once what was written has reached the client.
                await new Promise((resolve) => setTimeout(resolve, 50))
                response.destroy()
              }
              continue
            }
            response.write(formatSSEEvent(event))
            sent += 1
          }
          if (response.destroyed) return
        } catch (error) {
          response.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: body.id, error: String(error) }))
        }
        response.end()
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer))
    })()
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}
