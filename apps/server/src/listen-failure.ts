/**
 * What a failed `listen` means to the person who started the server, and what to change: a
 * port in use, a port that needs privileges, a `HOST` that is not this machine's. `undefined`
 * for any other error (its own message is the line then).
 *
 * @example
 * listenFailureOf(error) // 'port 8787 on 127.0.0.1 is in use (another Baton server, or another program): stop it, or start with another PORT (PORT=8788)'
 */
export function listenFailureOf(error: unknown): string | undefined {
  const { code, port, address } = (error ?? {}) as {
    code?: unknown
    port?: unknown
    address?: unknown
  }
  if (typeof code !== 'string' || (error as { syscall?: unknown }).syscall !== 'listen') {
    return undefined
  }
  const where = `port ${port} on ${address}`
  const next = typeof port === 'number' && port > 0 && port < 65_535 ? ` (PORT=${port + 1})` : ''
  switch (code) {
    case 'EADDRINUSE':
      return `${where} is in use (another Baton server, or another program): stop it, or start with another PORT${next}`
    case 'EACCES':
      return `${where} needs privileges this user does not have (ports below 1024 do): start with another PORT, e.g. PORT=8787`
    case 'EADDRNOTAVAIL':
      return `HOST ${address} is not an address of this machine: start with HOST=127.0.0.1 (this machine only) or HOST=0.0.0.0 (every interface)`
    default:
      return undefined
  }
}
