import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type RegistryServer = {
  /** `http://127.0.0.1:{port}` */
  url: string
  port: number
  /** Every request received, in order. */
  requests: { method: string; url: string; authorization: string | undefined }[]
  close(): Promise<void>
}

/** A real HTTP server on 127.0.0.1 (a free port) answering with `handler`. */
export async function startRegistryServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<RegistryServer> {
  const requests: RegistryServer['requests'] = []
  const server = createServer((request, response) => {
    requests.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
    })
    handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Servers that never answer hold their sockets open; drop them so close() returns.
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Sends `body` as JSON with `status`. */
export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}
