import { createServerBatonStores } from '@baton/surface'
import { authorizedFetch } from './api-key'
import { endpoint } from './client'

/** The one set of stores the whole page reads: the server's agents, swarms and bus. */
export const stores = createServerBatonStores(endpoint)

/**
 * Reads the agents and swarms again (on start, and when the server comes back).
 *
 * @example
 * await refreshDirectory()
 */
export async function refreshDirectory(): Promise<void> {
  const source = { baseUrl: `${endpoint.baseUrl}/api/v1`, fetch: authorizedFetch }
  await Promise.all([
    stores.agents.getState().load(source),
    stores.swarms.getState().loadSwarms(source),
  ])
}
