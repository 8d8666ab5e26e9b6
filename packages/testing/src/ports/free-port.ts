import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** The lowest port handed out: below it are the well-known and registered ports of services. */
const LOWEST = 20_000
/** Tries at random ports before the OS is left to pick one. */
const ATTEMPTS = 50

/**
 * The kernel's ephemeral range: where it picks the local port of every outgoing connection,
 * and of `listen(0)` (Linux: `ip_local_port_range`, 32768–60999 by default; macOS and
 * Windows: 49152–65535).
 */
export function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!]
  } catch {
    // Not Linux.
  }
  return [32_768, 65_535]
}

/** Listens on `port` (0: one the OS picks) of 127.0.0.1 and closes; the port, or undefined when taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(undefined)
      else reject(error)
    })
    server.listen(port, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port)
        else reject(new Error('the port probe has no address'))
      })
    })
  })
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, for a process that binds it
 * later (Redis, PostgreSQL, a server restarted on the same address). It is chosen below the
 * kernel's ephemeral range: a port from `listen(0)` comes from that range, and between the
 * probe closing and the other process binding it (seconds, for a server that starts from
 * source), any connection opened meanwhile may be given it as its local port, and the bind
 * fails with `EADDRINUSE`. A process that prints the address it listens on needs no port
 * from here: start it on port 0.
 *
 * @example
 * const port = await freePort()
 * spawn('redis-server', ['--port', String(port)])
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange()
  const span = ephemeralLow - LOWEST
  if (span > 1_000) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const port = await probe(LOWEST + Math.floor(Math.random() * span))
      if (port !== undefined) return port
    }
  }
  // No room below the ephemeral range (a system that set it low), or all of it taken.
  const port = await probe(0)
  if (port === undefined) throw new Error('no free port on 127.0.0.1')
  return port
}
