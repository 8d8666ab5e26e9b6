import { createMessageBus } from '@baton/comm'
import { createAdvancedAgentStore } from '../advanced-agent-store/create-advanced-agent-store'
import { createAgentStore } from '../agent-store/create-agent-store'
import type { BatonStores } from '../stores/create-baton-stores'
import {
  type CreateServerCommunicationStoreOptions,
  createServerCommunicationStore,
  type ServerCommunicationStore,
} from './create-server-communication-store'
import { createServerSwarmRunner } from './create-server-swarm-runner'

/** `BatonStores` whose state is a Baton server's; `comm` also says how its stream stands. */
export type ServerBatonStores = Omit<BatonStores, 'comm'> & { comm: ServerCommunicationStore }

/**
 * Stores for `<BatonProvider>` backed by a Baton server: agents and swarms load from
 * `/api/v1/agents` and `/api/v1/swarms`, swarm runs start there, and `comm` is the server's
 * bus (`createServerCommunicationStore`), so `useA2ADelegation` sends every message to the
 * server and its loop guard. `bus` is a local bus nothing sends on; it is there only because
 * `BatonStores` names one.
 *
 * @example
 * const stores = createServerBatonStores({ baseUrl: location.origin })
 * await stores.agents.getState().load({ baseUrl: `${location.origin}/api/v1` })
 * root.render(<BatonProvider stores={stores}><App /></BatonProvider>)
 */
export function createServerBatonStores(
  options: CreateServerCommunicationStoreOptions,
): ServerBatonStores {
  return {
    agents: createAgentStore(),
    swarms: createAdvancedAgentStore({ runner: createServerSwarmRunner(options) }),
    comm: createServerCommunicationStore(options),
    bus: createMessageBus(),
  }
}
