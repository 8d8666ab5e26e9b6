import { z } from 'zod'
import { DiscoveryUnavailableError } from './discovery-errors'
import type { AgentMatch, Discovery } from './discovery-types'

const Matches = z.object({
  agents: z.array(
    z.object({
      wallet: z.string(),
      name: z.string(),
      description: z.string(),
      capabilities: z.array(z.string()),
      score: z.number(),
    }),
  ),
})

/**
 * A lookup over a Baton server's `GET /api/v1/agents/search` (its agents table's full-text
 * index), for runs outside the server, such as the CLI's. Any failure fails closed with
 * `DISCOVERY_UNAVAILABLE`; the server's URL is never echoed with credentials.
 *
 * @example
 * await runPlan(plan, { registry, discovery: createHttpDiscovery({ baseUrl: 'http://127.0.0.1:8787' }) })
 */
export function createHttpDiscovery(options: {
  baseUrl: string
  fetch?: typeof globalThis.fetch
  headers?: Record<string, string>
}): Discovery {
  const fetcher = options.fetch ?? globalThis.fetch
  return {
    async searchAgents(query, search = {}): Promise<AgentMatch[]> {
      const url = new URL('/api/v1/agents/search', options.baseUrl)
      url.searchParams.set('q', query.query)
      url.searchParams.set('limit', String(query.limit))
      if (query.capability) url.searchParams.set('capability', query.capability)
      if (query.type) url.searchParams.set('type', query.type)
      if (query.trustTier) url.searchParams.set('trustTier', query.trustTier)
      const shown = `${url.origin}${url.pathname}`
      let response: Response
      try {
        response = await fetcher(url, {
          ...(options.headers ? { headers: options.headers } : {}),
          ...(search.signal ? { signal: search.signal } : {}),
        })
      } catch (error) {
        throw new DiscoveryUnavailableError({
          op: 'search_agents',
          reason: `${shown} could not be reached`,
          cause: error,
        })
      }
      const body = response.ok ? Matches.safeParse(await response.json().catch(() => null)) : null
      if (!body?.success) {
        throw new DiscoveryUnavailableError({
          op: 'search_agents',
          reason: `${shown} answered ${response.status} without a list of agents`,
        })
      }
      return body.data.agents
    },
  }
}
