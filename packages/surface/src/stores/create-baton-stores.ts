import {
  type CommunicationState,
  createCommunicationStore,
  createMessageBus,
  type MessageBus,
  type MessageBusOptions,
} from '@baton/comm'
import type { StoreApi } from 'zustand/vanilla'
import {
  type AdvancedAgentStore,
  createAdvancedAgentStore,
} from '../advanced-agent-store/create-advanced-agent-store'
import { type AgentStore, createAgentStore } from '../agent-store/create-agent-store'
import type { SwarmRunner } from '../swarm-runner/types'

/** Everything the hooks read: the three stores and the bus the communication store follows. */
export type BatonStores = {
  agents: AgentStore
  swarms: AdvancedAgentStore
  comm: StoreApi<CommunicationState>
  bus: MessageBus
}

export type CreateBatonStoresOptions = {
  /**
   * The runner, or a function making one from the stores (so it can read their agents and
   * swarms); the function is called when the first run starts.
   */
  runner?:
    | SwarmRunner
    | ((stores: { agents: AgentStore; swarms: AdvancedAgentStore }) => SwarmRunner)
  /** The bus to use (default: a new in-process bus made with `busOptions`). */
  bus?: MessageBus
  busOptions?: MessageBusOptions
  agents?: readonly unknown[]
  swarms?: readonly unknown[]
}

/**
 * Creates a matching set of stores for `<BatonProvider stores={…}>` (or for Node code).
 *
 * @example
 * const stores = createBatonStores({
 *   busOptions: { loopGuard: { maxHops: 4 } },
 *   runner: ({ agents, swarms }) =>
 *     createInProcessSwarmRunner({
 *       swarms: (id) => swarms.getState().getSwarm(id),
 *       agents: (id) => agents.getState().getById(id),
 *     }),
 * })
 */
export function createBatonStores(options: CreateBatonStoresOptions = {}): BatonStores {
  const bus = options.bus ?? createMessageBus(options.busOptions)
  const runnerOption = options.runner
  const agents = createAgentStore(options.agents ?? [])
  let swarms!: AdvancedAgentStore
  // The runner is made lazily, so a factory can use the swarm store it is given.
  const runner: SwarmRunner | undefined =
    typeof runnerOption === 'function'
      ? lazyRunner(() => runnerOption({ agents, swarms }))
      : runnerOption
  swarms = createAdvancedAgentStore({
    ...(runner ? { runner } : {}),
    ...(options.swarms ? { swarms: options.swarms } : {}),
  })
  return {
    agents,
    swarms,
    comm: createCommunicationStore(bus),
    bus,
  }
}

function lazyRunner(make: () => SwarmRunner): SwarmRunner {
  let made: SwarmRunner | undefined
  const get = () => {
    made ??= make()
    return made
  }
  return {
    start: (swarmId, task) => get().start(swarmId, task),
    subscribe: (runId, onEvent) => get().subscribe(runId, onEvent),
    cancel: (runId) => get().cancel?.(runId),
  }
}
