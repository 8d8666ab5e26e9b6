import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { BatonError } from '@baton/core'
import { Agent, buildConnector, fetch as undiciFetch } from 'undici'
import { isPrivateAddress } from './is-private-address'

/** An agent endpoint is on an address this server does not call (loopback, private, metadata…). */
export class EndpointRefusedError extends BatonError {
  override name = 'EndpointRefusedError'
  constructor(host: string) {
    super(
      'ENDPOINT_REFUSED',
      `The endpoint host ${host} is a loopback, private, link-local or otherwise internal address; this server calls only public ones (BATON_ALLOW_PRIVATE_ENDPOINTS=true allows others).`,
      { details: { host } },
    )
  }
}

/** Resolves a name to its public addresses only; a name with none is refused. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0)
    const allowed = addresses.filter((entry) => !isPrivateAddress(entry.address))
    if (allowed.length === 0) {
      return callback(new EndpointRefusedError(hostname) as unknown as NodeJS.ErrnoException, '', 0)
    }
    if (options.all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed)
    return callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

/**
 * The undici dispatcher of outgoing agent calls: names resolve to public addresses only, an
 * IP literal is judged before any connection, and the address a socket really reached is
 * checked again, so neither a private literal nor a name that (re)binds to one gets through.
 */
function publicOnlyAgent(): Agent {
  const connect = buildConnector({ lookup: publicLookup })
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host) && isPrivateAddress(host)) {
        callback(new EndpointRefusedError(host), null)
        return
      }
      connect(options, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no socket'), null)
        const reached = socket.remoteAddress
        if (reached && isPrivateAddress(reached)) {
          socket.destroy()
          return callback(new EndpointRefusedError(options.hostname), null)
        }
        return callback(null, socket)
      })
    },
  })
}

/**
 * The `fetch` the server calls agent endpoints with (A2A cards and JSON-RPC): it never
 * follows a redirect (a 3xx is the answer, and the caller refuses it), and unless
 * `allowPrivate` it connects to public addresses only (`EndpointRefusedError`,
 * `ENDPOINT_REFUSED`), whatever the URL spells or its name resolves to.
 *
 * @example
 * const fetch = createEndpointFetch({ allowPrivate: settings.allowPrivateEndpoints })
 * await sendA2AMessage({ endpoint: agent.endpoint, text, fetch })
 */
export function createEndpointFetch(options: { allowPrivate: boolean }): typeof globalThis.fetch {
  const dispatcher = options.allowPrivate ? new Agent() : publicOnlyAgent()
  return (async (input: string | URL | Request, init?: RequestInit) => {
    // The A2A SDK passes a URL and an init; a Request's own body and headers would be lost here.
    if (input instanceof Request)
      throw new TypeError('The endpoint fetch takes a URL, not a Request.')
    const url = String(input)
    return undiciFetch(url, {
      ...(init as object),
      redirect: 'manual',
      dispatcher,
    })
  }) as unknown as typeof globalThis.fetch
}
