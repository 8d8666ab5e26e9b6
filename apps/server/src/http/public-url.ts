import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'

/** Where the server listens: the bound socket's address, or the configured host and port. */
export type ListeningAddress = Pick<AddressInfo, 'address' | 'port'>

const wildcards = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0'])
const loopbacks = new Set(['127.0.0.1', '::1', 'localhost'])

/** `host:port` as a URL's authority (IPv6 addresses in brackets). */
function authorityOf(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}

/**
 * The server's own base URL, never taken from a request: the public URL when one is set
 * (`BATON_PUBLIC_URL`), else the listening address (loopback when it listens on every
 * interface, since a wildcard address is not one a client can reach by name).
 *
 * @example
 * serverBaseUrl({ publicUrl: undefined, listening: { address: '127.0.0.1', port: 8787 } })
 * // 'http://127.0.0.1:8787'
 */
export function serverBaseUrl(options: {
  publicUrl: string | undefined
  listening: ListeningAddress
}): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '')
  const { address, port } = options.listening
  return `http://${authorityOf(wildcards.has(address) ? '127.0.0.1' : address, port)}`
}

/**
 * The origins a browser shows for pages this server serves itself: the public URL's origin
 * when one is set; else the listening address, with its loopback spellings (`localhost`,
 * `127.0.0.1`, `[::1]`) when it listens on loopback, and every local interface's address
 * when it listens on all of them.
 *
 * @example
 * ownOrigins({ publicUrl: undefined, listening: { address: '127.0.0.1', port: 8787 } })
 * // ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787']
 */
export function ownOrigins(options: {
  publicUrl: string | undefined
  listening: ListeningAddress
}): string[] {
  if (options.publicUrl) return [new URL(options.publicUrl).origin]
  const { address, port } = options.listening
  const hosts = new Set<string>()
  if (loopbacks.has(address) || wildcards.has(address)) {
    for (const loopback of loopbacks) hosts.add(loopback)
  }
  if (wildcards.has(address)) {
    for (const each of Object.values(networkInterfaces()).flat()) {
      if (each) hosts.add(each.address.split('%', 1)[0] ?? each.address)
    }
  } else {
    hosts.add(address)
  }
  return [...hosts].map((host) => new URL(`http://${authorityOf(host, port)}`).origin)
}

// The address each server was bound to when first asked: `address()` is a system call
// (`getsockname`), and it was asked at every A2A request (1.8% of the server's CPU under load).
const boundAddresses = new WeakMap<object, AddressInfo>()

type Server = {
  address(): AddressInfo | string | null
  once?(event: 'close', listener: () => void): unknown
}

/**
 * The address a fastify server is bound to, or `fallback` before it listens (`inject()`).
 * Asked of the server once while it listens (again after it closes: it may listen elsewhere).
 *
 * @example
 * listeningAddressOf(app.server, { address: settings.host, port: settings.port })
 */
export function listeningAddressOf(server: Server, fallback: ListeningAddress): ListeningAddress {
  const known = boundAddresses.get(server)
  if (known) return known
  const bound = server.address()
  if (!bound || typeof bound !== 'object') return fallback
  boundAddresses.set(server, bound)
  server.once?.('close', () => boundAddresses.delete(server))
  return bound
}
