import { createServer } from 'node:net'

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it; the probe is
 * closed before this resolves).
 *
 * @example
 * const port = await freePort()
 * app.listen({ host: '127.0.0.1', port })
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => {
        if (typeof address === 'object' && address) resolve(address.port)
        else reject(new Error('the port probe has no address'))
      })
    })
  })
}
