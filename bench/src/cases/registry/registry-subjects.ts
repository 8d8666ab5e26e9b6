import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRegistryClient } from '@baton/core'
import { benchAgentInput, benchWallet } from '../../fixtures'
import { timePerOperation } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { lookUps } from './registry-case'

/** A registry on 127.0.0.1 that knows one agent and counts the requests it gets. */
async function startRegistry(): Promise<{
  url: string
  requests: () => number
  close(): Promise<void>
}> {
  let requests = 0
  const body = JSON.stringify(benchAgentInput)
  const server = createServer((request, response) => {
    requests += 1
    const known = request.url?.toLowerCase() === `/agent/${benchWallet.toLowerCase()}`
    response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' })
    response.end(known ? body : '{"error":"not found"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A look-up of an agent already known, and many first look-ups at once. */
export const registrySubjects: Subjects = {
  async bare(size) {
    const cache = new Map([[benchWallet.toLowerCase(), benchAgentInput]])
    const lookUp = async (wallet: string) => cache.get(wallet.toLowerCase())
    const { cached } = lookUps(size)
    const { microseconds } = await timePerOperation({
      operations: cached,
      work: async () => {
        for (let index = 0; index < cached; index += 1) await lookUp(benchWallet)
      },
    })
    return { value: microseconds * 1000 }
  },

  async baton(size) {
    const { cached, cold } = lookUps(size)
    const registry = await startRegistry()
    try {
      const warm = createRegistryClient({ baseUrl: registry.url })
      await warm.ensureRegisteredAgent(benchWallet)
      const { microseconds } = await timePerOperation({
        operations: cached,
        work: async () => {
          for (let index = 0; index < cached; index += 1)
            await warm.ensureRegisteredAgent(benchWallet)
        },
      })
      const before = registry.requests()
      const fresh = createRegistryClient({ baseUrl: registry.url })
      const agents = await Promise.all(
        Array.from({ length: cold }, () => fresh.ensureRegisteredAgent(benchWallet)),
      )
      const coldRequests = registry.requests() - before
      if (agents.some((agent) => agent.wallet !== benchAgentInput.wallet)) {
        throw new Error('a cold look-up returned another agent')
      }
      const nanoseconds = microseconds * 1000
      return {
        value: nanoseconds,
        text: `${formatNumber(nanoseconds)} ns/op; ${cold} cold → ${coldRequests} request${coldRequests === 1 ? '' : 's'}`,
        details: { coldRequests, cold },
      }
    } finally {
      await registry.close()
    }
  },
}
