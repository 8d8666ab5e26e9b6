// The registry client: a cached ensureRegisteredAgent, and 1000 concurrent cold look-ups of
// one wallet against a real HTTP server on 127.0.0.1 (they must share one request).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRegistryClient } from '../src'

const wallet = '0x52908400098527886E0F7030069857D2E4169EE7'
const record = {
  id: 'analyst',
  wallet,
  creator: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  name: 'Analyst',
  type: 'specialist',
  model: 'offline:default',
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
}

export async function registry(lookups = 1_000_000): Promise<void> {
  let requests = 0
  const server = createServer((_request, response) => {
    requests += 1
    // A little latency, so the concurrent look-ups really overlap.
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(record))
    }, 20)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  try {
    const client = createRegistryClient({ baseUrl: `http://127.0.0.1:${port}` })
    const cold = await Promise.all(
      Array.from({ length: 1000 }, () => client.ensureRegisteredAgent(wallet)),
    )
    console.log(
      `registry: 1000 concurrent cold look-ups → ${requests} request(s), ${new Set(cold).size} agent object(s)`,
    )
    const started = performance.now()
    for (let i = 0; i < lookups; i++) await client.ensureRegisteredAgent(wallet)
    const nanos = ((performance.now() - started) * 1e6) / lookups
    console.log(`registry: cached ensureRegisteredAgent  ${nanos.toFixed(0).padStart(8)} ns/op`)
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await registry()
