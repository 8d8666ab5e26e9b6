import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** How the registry answers for one wallet. */
export type RegistryBehaviour =
  | { kind: 'agent'; body: unknown }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'hang' }

export type RegistryServer = {
  url: string
  /** Wallets asked for, lowercased, in order. */
  requests: string[]
  set(wallet: string, behaviour: RegistryBehaviour): void
  close(): Promise<void>
}

/**
 * A real HTTP registry on 127.0.0.1 serving `GET /agent/:wallet`; unknown wallets are 404.
 */
export async function startRegistryServer(
  agents: Record<string, RegistryBehaviour> = {},
): Promise<RegistryServer> {
  const behaviours = new Map(
    Object.entries(agents).map(([wallet, behaviour]) => [wallet.toLowerCase(), behaviour]),
  )
  const requests: string[] = []
  const hanging = new Set<() => void>()
  const server: Server = createServer((request, response) => {
    const match = /^\/agent\/([^/?]+)/.exec(request.url ?? '')
    const wallet = match?.[1]?.toLowerCase() ?? ''
    requests.push(wallet)
    const behaviour = behaviours.get(wallet)
    if (!match || !behaviour) {
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end('{"error":"not found"}')
      return
    }
    switch (behaviour.kind) {
      case 'agent':
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(behaviour.body))
        return
      case 'status':
        response.writeHead(behaviour.status, { 'content-type': 'application/json' })
        response.end('{"error":"boom"}')
        return
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end('<html>definitely not an agent')
        return
      case 'hang': {
        const release = () => response.destroy()
        hanging.add(release)
        request.on('close', () => hanging.delete(release))
        return
      }
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set: (wallet, behaviour) => behaviours.set(wallet.toLowerCase(), behaviour),
    close: async () => {
      for (const release of hanging) release()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
