import type { Discovery } from '@baton/mal'
import type { Kysely } from 'kysely'
import { createAgentsSearchRepository } from '../db/agents-search-repository'
import type { Database } from '../db/database'

/**
 * The server runs' lookup: `search_agents` over the agents table's full-text index (the
 * same query as `GET /api/v1/agents/search`); tools and models are searched by the run itself.
 *
 * @example
 * await runPlan(plan, { registry, discovery: createDatabaseDiscovery(db) })
 */
export function createDatabaseDiscovery(db: Kysely<Database>): Discovery {
  const search = createAgentsSearchRepository(db)
  return {
    async searchAgents(query, options) {
      options?.signal?.throwIfAborted()
      return search.search(query)
    },
  }
}
