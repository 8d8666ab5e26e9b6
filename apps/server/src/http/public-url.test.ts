import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { listeningAddressOf } from './public-url'

const fallback = { address: '127.0.0.1', port: 80 }

describe('listeningAddressOf', () => {
  const servers: ReturnType<typeof createServer>[] = []
  afterEach(() => {
    for (const server of servers) server.close()
  })

  it('answers the fallback before the server listens, then its address, asked of it once while it listens, and anew after it closes', async () => {
    const server = createServer()
    servers.push(server)
    let asked = 0
    const address = server.address.bind(server)
    server.address = () => {
      asked += 1
      return address()
    }
    expect(listeningAddressOf(server, fallback)).toEqual(fallback)

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const first = (server.address() as AddressInfo).port
    asked = 0
    for (let index = 0; index < 5; index += 1) {
      expect(listeningAddressOf(server, fallback)).toMatchObject({
        address: '127.0.0.1',
        port: first,
      })
    }
    expect(asked).toBe(1)

    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(listeningAddressOf(server, fallback)).toEqual(fallback)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const second = (server.address() as AddressInfo).port
    expect(listeningAddressOf(server, fallback)).toMatchObject({ port: second })
  })
})
