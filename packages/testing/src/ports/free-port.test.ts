import { existsSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ephemeralRange, freePort } from './free-port'

const linux = existsSync('/proc/sys/net/ipv4/ip_local_port_range')

describe('freePort', () => {
  const opened: (Server | Socket)[] = []
  afterEach(async () => {
    // Connections first: a server's close waits for its connections to end.
    for (const each of opened.splice(0).reverse()) {
      if ('destroy' in each) each.destroy()
      else await new Promise((resolve) => each.close(resolve))
    }
  })

  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer()
      opened.push(server)
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve(server))
    })

  it('gives a port another process can then listen on', async () => {
    const port = await freePort()
    expect(port).toBeGreaterThan(0)
    await expect(listen(port)).resolves.toBeDefined()
  })

  it.skipIf(!linux)(
    'gives ports the kernel never hands to a connection opened meanwhile (below its ephemeral range)',
    async () => {
      const [low] = ephemeralRange()
      const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()))
      for (const port of ports) expect(port).toBeLessThan(low)

      // What took a server's port in CI: connections opened while it started, each given a
      // local port by the kernel. None of 500 gets one of these.
      const target = await listen(0)
      const { port: targetPort } = target.address() as { port: number }
      const locals = await Promise.all(
        Array.from(
          { length: 500 },
          () =>
            new Promise<number>((resolve, reject) => {
              const socket = connect(targetPort, '127.0.0.1', () => resolve(socket.localPort!))
              opened.push(socket)
              socket.once('error', reject)
            }),
        ),
      )
      for (const local of locals) expect(ports).not.toContain(local)
      expect(Math.min(...locals)).toBeGreaterThanOrEqual(low)
    },
  )
})
