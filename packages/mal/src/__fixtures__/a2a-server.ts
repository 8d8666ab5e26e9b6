import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type A2ARequest = {
  method: string
  params: unknown
  id: unknown
  headers?: Record<string, string | string[] | undefined>
}

/** What the server answers to one JSON-RPC request: a result, an error, a raw HTTP reply, nothing, or a closed connection. */
export type A2AAnswer =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | { status: number; body: string }
  | { hang: true }
  /** The connection closed without an answer (the agent's process gone for a moment). */
  | { drop: true }

export type A2AServer = {
  url: string
  requests: A2ARequest[]
  close(): Promise<void>
}

/** A real A2A-speaking JSON-RPC 2.0 server on 127.0.0.1. */
export async function startA2AServer(
  answer: (request: A2ARequest) => A2AAnswer | Promise<A2AAnswer>,
): Promise<A2AServer> {
  const requests: A2ARequest[] = []
  const server: Server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as A2ARequest
    requests.push({
      method: body.method,
      params: body.params,
      id: body.id,
      headers: request.headers,
    })
    const reply = await answer(body)
    if ('hang' in reply) return
    if ('drop' in reply) {
      request.socket.destroy()
      return
    }
    if ('status' in reply) {
      response.writeHead(reply.status, { 'content-type': 'application/json' })
      response.end(reply.body)
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...reply }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/a2a`,
    requests,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}
