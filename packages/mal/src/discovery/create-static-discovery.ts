import type { Agent, AgentInput, ModelRegistry } from '@baton/core'
import type { Discovery } from './discovery-types'
import type { CatalogModel } from './model-catalog'
import { searchAgentList } from './search-agent-list'
import { searchModelCatalog } from './search-model-catalog'
import { searchToolSet } from './search-tool-set'

export type StaticDiscoveryOptions = {
  /** The agents `search_agents` ranks (a local agents file; the same list as the registry's). */
  agents?: readonly (Agent | AgentInput)[]
  /** The tools `search_tools` ranks (default: the run's own tools). */
  tools?: Readonly<Record<string, { description?: string | undefined }>>
  /** The models `search_models` finds (default: the run's model registry and price table). */
  models?: ModelRegistry
  catalog?: readonly CatalogModel[]
}

/**
 * An in-process lookup over static lists, for `runPlan({ discovery })`. Whatever it is not
 * given, the run searches on its own (its tools, its model registry).
 *
 * @example
 * const agents = JSON.parse(await readFile('agents.json', 'utf8'))
 * await runPlan(plan, { registry: createStaticRegistry(agents), discovery: createStaticDiscovery({ agents }) })
 */
export function createStaticDiscovery(options: StaticDiscoveryOptions): Discovery {
  const { agents, tools, models, catalog } = options
  return {
    ...(agents ? { searchAgents: async (query) => searchAgentList(agents, query) } : {}),
    ...(tools ? { searchTools: async (query) => searchToolSet(tools, query) } : {}),
    ...(models
      ? {
          searchModels: async (query) =>
            searchModelCatalog(
              {
                providers: models.providers(),
                ...(models.prices ? { prices: models.prices } : {}),
                ...(catalog ? { catalog } : {}),
              },
              query,
            ),
        }
      : {}),
  }
}
