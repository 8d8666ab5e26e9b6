import { lookup } from 'node:dns/promises'
import http from 'node:http'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import type { OriginPolicy } from './origin-policy'

/** The header a refused plain-HTTP request's 403 carries, so the workspace can tell it apart. */
export const REFUSED_HEADER = 'x-baton-refused'

export type OriginProxy = {
  /** `http://127.0.0.1:<port>`, for `browser.newContext({ proxy: { server } })`. */
  readonly server: string
  close(): Promise<void>
}

/**
 * A forward proxy on 127.0.0.1 that every request of one browser context goes through (pages,
 * redirects, scripts' fetches, workers, WebSockets, HTTPS tunnels), and that lets through only
 * what `policy` allows. Each redirect is a request of its own, so a redirect cannot lead out;
 * a host name is resolved here and the connection made to the address checked, so a name that
 * resolves to a loopback address cannot reach one unless loopback is allowed.
 *
 * @example
 * const proxy = await startOriginProxy({ policy, onRefused: (url, reason) => log(url, reason) })
 * await browser.newContext({ proxy: { server: proxy.server } })
 */
export async function startOriginProxy(options: {
  policy: OriginPolicy
  onRefused: (url: string, reason: string) => void
}): Promise<OriginProxy> {
  const { policy, onRefused } = options
  const sockets = new Set<Duplex>()
  const track = (socket: Duplex) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }

  // A checked address for `url`'s host, or the reason it is refused.
  const admit = async (url: string): Promise<{ address: string } | { reason: string }> => {
    const reason = policy.refusal(url)
    if (reason !== undefined) return { reason }
    const { hostname } = new URL(url)
    const host = hostname.replace(/^\[|\]$/g, '')
    const address = net.isIP(host) ? host : (await lookup(host).catch(() => undefined))?.address
    if (address === undefined) return { reason: `its host ${host} could not be resolved` }
    if (!policy.addressAllowed(address)) {
      return { reason: `its host ${host} resolves to a loopback address (${address})` }
    }
    return { address }
  }
  const refuse = (url: string, reason: string) => {
    onRefused(url, reason)
    return `Refused by the workspace: ${url} (${reason}).`
  }

  const server = http.createServer(async (request, response) => {
    const url = request.url ?? ''
    const admitted = await admit(url)
    if ('reason' in admitted) {
      response.writeHead(403, {
        'content-type': 'text/plain; charset=utf-8',
        [REFUSED_HEADER]: '1',
      })
      response.end(refuse(url, admitted.reason))
      return
    }
    const target = new URL(url)
    const headers = { ...request.headers }
    delete headers['proxy-connection']
    delete headers['proxy-authorization']
    const upstream = http.request({
      host: admitted.address,
      port: target.port || 80,
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
    })
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
      answer.pipe(response)
    })
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502)
      response.end()
    })
    // The page went away (its context closed, a navigation replaced it): so does its request.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy()
    })
    request.pipe(upstream)
  })

  // HTTPS (and secure WebSockets): a tunnel to a checked address, or a refusal.
  server.on('connect', async (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client)
    client.on('error', () => {})
    const [host = '', port = '443'] = splitHostPort(request.url ?? '')
    const url = `https://${host}:${port}/`
    const admitted = await admit(url)
    if ('reason' in admitted) {
      refuse(url, admitted.reason)
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    const upstream = net.connect(Number(port), admitted.address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    track(upstream)
    upstream.on('error', () => client.destroy())
  })

  // Plain WebSockets through the proxy.
  server.on('upgrade', async (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client)
    client.on('error', () => {})
    const url = request.url ?? ''
    const admitted = await admit(url)
    if ('reason' in admitted) {
      refuse(url, admitted.reason)
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    const target = new URL(url)
    const upstream = net.connect(Number(target.port || 80), admitted.address, () => {
      const lines = [`${request.method} ${target.pathname}${target.search} HTTP/1.1`]
      for (let index = 0; index < request.rawHeaders.length; index += 2) {
        lines.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`)
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    track(upstream)
    upstream.on('error', () => client.destroy())
  })
  server.on('connection', track)

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as net.AddressInfo
  return {
    server: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function splitHostPort(authority: string): [string, string] {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(authority)
  if (bracketed) return [`[${bracketed[1]}]`, bracketed[2]!]
  const index = authority.lastIndexOf(':')
  return index === -1 ? [authority, '443'] : [authority.slice(0, index), authority.slice(index + 1)]
}
