// Prints throughput figures for the surface's hot paths. Run: pnpm --filter @baton/surface bench
import { Agent } from '@baton/core'
import { createInProcessSwarmRunner } from '@baton/mal'
import {
  createAdvancedAgentStore,
  createBatonStores,
  createDelegation,
  parseMentions,
  type SwarmRunEvent,
  waitForSwarmRun,
} from '@baton/surface/vanilla'

function makeAgents(count: number, canDelegateEvery = 10): Agent[] {
  return Array.from({ length: count }, (_, index) =>
    Agent.parse({
      id: `agent-${index}`,
      name: `Agent Number ${index}`,
      wallet: `0x${(index + 1).toString(16).padStart(40, '0')}`,
      creator: '0x00000000000000000000000000000000000000aa',
      type: 'worker',
      model: 'offline:default',
      agentCard: { canDelegate: index % canDelegateEvery === 0 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    }),
  )
}

async function measure(label: string, iterations: number, body: (index: number) => unknown) {
  for (let index = 0; index < Math.min(50, iterations); index++) await body(index)
  const started = performance.now()
  for (let index = 0; index < iterations; index++) await body(index)
  const elapsed = performance.now() - started
  const perSecond = Math.round((iterations / elapsed) * 1000)
  console.log(
    `${label.padEnd(58)} ${(elapsed / iterations).toFixed(3).padStart(9)} ms/op ${String(perSecond).padStart(9)} op/s`,
  )
}

const agents = makeAgents(200)
const message = `Hi @Agent Number 150, please ask @agent-7 and @Agent Number 42 to ${'review the incident log and '.repeat(8)}report back. cc ops@example.com`
await measure('parseMentions (200 agents, 3 mentions, ~280 chars)', 2_000, () =>
  parseMentions(message, agents),
)

const stores = createBatonStores({ agents })
await measure('agents.getByMention (200 agents)', 2_000, () =>
  stores.agents.getState().getByMention('@Agent Number 199'),
)

const delegation = createDelegation(stores)
await measure('delegate → A2A message on the in-process bus', 2_000, (index) =>
  delegation.delegate(`agent-${(index % 9) + 1}`, 'agent-0', `task ${index}`),
)
await measure('delegate → regular agent (nothing routed)', 5_000, () =>
  delegation.delegate('agent-0', 'agent-1', 'task'),
)
await stores.bus.close()

let emit: (event: SwarmRunEvent) => void = () => {}
const eventStore = createAdvancedAgentStore({
  swarms: [
    {
      id: 's',
      name: 'S',
      strategy: 'round-robin',
      agents: [{ agentId: 'agent-1', role: 'worker' }],
    },
  ],
  runner: {
    start: async () => 'run-1',
    subscribe: (_runId, onEvent) => {
      emit = onEvent
      return () => {}
    },
  },
  maxEventsPerRun: 500,
})
await eventStore.getState().startSwarmRun('s', 'go')
await measure('swarm event into the store (500 kept per run)', 20_000, (index) =>
  emit({ type: 'round-start', runId: 'run-1', round: index }),
)
console.log(
  `${'events kept after 20,050 received'.padEnd(58)} ${String(eventStore.getState().runs['run-1']!.events.length).padStart(9)}`,
)

const swarmStores = createBatonStores({
  agents,
  swarms: [
    {
      id: 'research',
      name: 'Research',
      strategy: 'round-robin',
      maxRounds: 1,
      agents: [
        { agentId: 'agent-1', role: 'worker' },
        { agentId: 'agent-2', role: 'critic' },
      ],
    },
  ],
  runner: ({ agents: agentStore, swarms }) =>
    createInProcessSwarmRunner({
      swarms: (id) => swarms.getState().getSwarm(id),
      agents: (id) => agentStore.getState().getById(id),
    }),
})
const swarmDelegation = createDelegation(swarmStores)
await measure('delegate → swarm run to completion (offline, 2 members)', 100, async () => {
  const result = await swarmDelegation.delegate('user', 'swarm_research', 'compare Q1 and Q2')
  await waitForSwarmRun(swarmStores.swarms, result.runId!)
  swarmStores.swarms.getState().forgetSwarmRun(result.runId!)
})
await swarmStores.bus.close()
