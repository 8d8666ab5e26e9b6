import { createServer, type Socket, connect as tcpConnect } from 'node:net'

export type SlowLink = {
  /** `redis://127.0.0.1:PORT` of the link (what a client connects to instead). */
  url: string
  close(): Promise<void>
}

/**
 * A TCP link to `target` (a `redis://host:port` URL) that hands the client what the server
 * sends `delayMs` late, in order, as a congested or distant network does to one connection
 * and not another. What the client sends goes through at once.
 *
 * @example
 * const link = await startSlowLink(redis.url, 400)
 * const subscriber = new Redis(link.url)
 */
export async function startSlowLink(target: string, delayMs: number): Promise<SlowLink> {
  const { hostname, port } = new URL(target)
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(port), hostname)
    sockets.add(client).add(upstream)
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk)
      }, delayMs)
    })
    const close = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', close).on('error', close)
    upstream.on('close', () => setTimeout(close, delayMs)).on('error', close)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('the slow link has no port')
  return {
    url: `redis://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
