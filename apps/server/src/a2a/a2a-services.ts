import type { Agent } from '@baton/core'
import type { Kysely } from 'kysely'
import type { BatonServices, RunHostedAgentInput, RunHostedAgentResult } from '../services'

/** The little the A2A endpoints need from the server, so they can be tested on their own. */
export type A2AServices = {
  /** When set, the JSON-RPC endpoints require `Authorization: Bearer <token>` and the cards say so. */
  apiToken: string | undefined
  /** The server's database: A2A tasks live in its `a2a_tasks` table (migration 0002). */
  // biome-ignore lint/suspicious/noExplicitAny: the task store names its table at runtime, whatever the schema.
  db: Kysely<any>
  /** The live hosted agent with this id. */
  findAgent(agentId: string): Promise<Agent | undefined>
  /** The agent the server-wide card describes: the first orchestrator. */
  findOrchestrator(): Promise<Agent | undefined>
  runHostedAgent(input: RunHostedAgentInput): Promise<RunHostedAgentResult>
  /** How many hops the bus has counted in a conversation (0 when it has not seen it). */
  hops(correlationId: string): number
}

/**
 * The A2A endpoints' view of the decorated server services.
 *
 * @example
 * await app.register(createA2APlugin(a2aServicesFrom(app.baton)))
 */
export function a2aServicesFrom(baton: BatonServices): A2AServices {
  return {
    apiToken: baton.settings.apiToken,
    db: baton.db,
    findAgent: (agentId) => baton.repositories.agents.findById(agentId),
    findOrchestrator: async () => {
      const { agents } = await baton.repositories.agents.list({
        type: 'orchestrator',
        limit: 1,
        offset: 0,
      })
      return agents[0]
    },
    runHostedAgent: (input) => baton.agentHost.runHostedAgent(input),
    hops: (correlationId) => baton.bus.hops(correlationId),
  }
}
