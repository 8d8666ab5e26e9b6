import { isIP } from 'node:net'
import { ValidationError } from '@baton/core'

/** Decides which origins a browser workspace may reach. */
export type OriginPolicy = {
  /** Why `url` may not be loaded, or `undefined` when it may. */
  refusal(url: string): string | undefined
  /** Whether a connection to this resolved address is allowed (loopback only when allowed). */
  addressAllowed(address: string): boolean
  readonly allowedOrigins: readonly string[]
  readonly allowLoopback: boolean
}

/**
 * The origin rules of a browser workspace. An entry of `allowedOrigins` is an origin
 * (`https://docs.example.com`, `http://127.0.0.1:8080`), a wildcard host (`https://*.example.com`),
 * or `*` (any http or https origin). Only `http:` and `https:` pages load (no `file:`, `chrome:`,
 * `data:` ...). A loopback host (`localhost`, `127.0.0.0/8`, `::1`, `0.0.0.0`) is refused unless
 * `allowLoopback` is true, whatever the entries say, and so is a name that resolves to one.
 *
 * @example
 * const policy = createOriginPolicy({ allowedOrigins: ['https://example.com'] })
 * policy.refusal('https://example.com/a') // undefined
 * policy.refusal('file:///etc/passwd') // 'only http and https pages may be opened (not file:)'
 */
export function createOriginPolicy(options: {
  allowedOrigins: readonly string[]
  allowLoopback?: boolean
}): OriginPolicy {
  const allowLoopback = options.allowLoopback === true
  const rules = options.allowedOrigins.map((entry, index) => parseRule(entry, index, allowLoopback))
  return {
    allowedOrigins: [...options.allowedOrigins],
    allowLoopback,
    refusal(raw) {
      let url: URL
      try {
        url = new URL(raw)
      } catch {
        return 'it is not a URL'
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return `only http and https pages may be opened (not ${url.protocol})`
      }
      if (!allowLoopback && isLoopbackHost(url.hostname)) {
        return 'loopback addresses are not allowed for this workspace'
      }
      if (!rules.some((rule) => rule(url))) {
        return `its origin ${url.origin} is not among the allowed origins (${options.allowedOrigins.join(', ') || 'none'})`
      }
      return undefined
    },
    addressAllowed: (address) => allowLoopback || !isLoopbackAddress(address),
  }
}

type Rule = (url: URL) => boolean

function parseRule(entry: string, index: number, allowLoopback: boolean): Rule {
  const invalid = (message: string) =>
    new ValidationError('browser workspace options', [
      { path: `allowedOrigins.${index}`, message: `"${entry}" ${message}` },
    ])
  if (entry === '*') return () => true
  const wildcard = /^(https?):\/\/\*\.([^/:]+)(?::(\d+))?$/.exec(entry)
  if (wildcard) {
    const [, scheme, suffix, port] = wildcard
    return (url) =>
      url.protocol === `${scheme}:` &&
      url.hostname.endsWith(`.${suffix!.toLowerCase()}`) &&
      url.port === (port ?? '')
  }
  let origin: URL
  try {
    origin = new URL(entry)
  } catch {
    throw invalid('is not an origin (https://host[:port], https://*.host or *)')
  }
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
    throw invalid('must be an http or https origin')
  }
  if (origin.pathname !== '/' || origin.search || origin.hash || entry.endsWith('/')) {
    throw invalid(`is not an origin (no path): did you mean "${origin.origin}"?`)
  }
  if (!allowLoopback && isLoopbackHost(origin.hostname)) {
    throw invalid('is a loopback origin: set allowLoopback: true to allow it')
  }
  return (url) => url.origin === origin.origin
}

/**
 * Whether a URL's host names this machine: `localhost` (and `*.localhost`), `127.0.0.0/8`,
 * `::1`, `0.0.0.0`, `::`, or an IPv4-mapped loopback address.
 *
 * @example
 * isLoopbackHost('127.0.0.2') // true
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  return isIP(host) !== 0 && isLoopbackAddress(host)
}

function isLoopbackAddress(address: string): boolean {
  const host = address.toLowerCase()
  if (isIP(host) === 4) return host.startsWith('127.') || host === '0.0.0.0'
  if (host === '::1' || host === '::') return true
  const mapped = /^::ffff:(.+)$/.exec(host)
  if (!mapped) return false
  const rest = mapped[1]!
  if (isIP(rest) === 4) return isLoopbackAddress(rest)
  // `::ffff:7f00:1`: the high 16 bits of the mapped IPv4 address.
  const high = Number.parseInt(rest.split(':')[0] ?? '', 16)
  return high >> 8 === 0x7f || rest.split(':').every((part) => Number.parseInt(part, 16) === 0)
}
