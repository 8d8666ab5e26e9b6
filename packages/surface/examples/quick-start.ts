// Routes three @mentions the way a chat surface does: an A2A message, a swarm run, a plain
// run. Everything runs in this process on the offline model (no network, no keys).
import { createInProcessSwarmRunner } from '@baton/mal'
import {
  createBatonStores,
  createDelegation,
  listMentionableAgents,
  parseMentions,
  waitForSwarmRun,
} from '@baton/surface/vanilla'

const agent = (id: string, name: string, wallet: string, canDelegate = false) => ({
  id,
  name,
  wallet,
  creator: '0x00000000000000000000000000000000000000aa',
  type: canDelegate ? 'orchestrator' : 'worker',
  model: 'offline:default',
  capabilities: [id],
  agentCard: { canDelegate },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
})

const stores = createBatonStores({
  agents: [
    agent('ops', 'Ops Orchestrator', '0x0000000000000000000000000000000000000001', true),
    agent('analyst', 'Analyst', '0x0000000000000000000000000000000000000002'),
    agent('critic', 'Critic', '0x0000000000000000000000000000000000000003'),
  ],
  swarms: [
    {
      id: 'research',
      name: 'Research Swarm',
      strategy: 'round-robin',
      maxRounds: 1,
      agents: [
        { agentId: 'analyst', role: 'worker' },
        { agentId: 'critic', role: 'critic' },
      ],
    },
  ],
  busOptions: { loopGuard: { maxHops: 4 } },
  runner: ({ agents, swarms }) =>
    createInProcessSwarmRunner({
      swarms: (swarmId) => swarms.getState().getSwarm(swarmId),
      agents: (agentId) => agents.getState().getById(agentId),
    }),
})

stores.bus.subscribe('ops', (message) => {
  console.log(`  ops received "${message.content}" (hop ${message.hop})`)
})

const delegation = createDelegation(stores)
const mentionable = listMentionableAgents(
  stores.agents.getState().agents,
  stores.swarms.getState().swarms,
)

for (const text of [
  '@Ops Orchestrator review yesterday’s incidents', // → A2A message to ops
  '@Research Swarm compare Q1 and Q2 revenue', // → swarm run
  '@Analyst summarise the churn numbers', // → the caller runs Analyst itself
]) {
  const { targets, task } = parseMentions(text, mentionable)
  const result = await delegation.delegate('user', targets[0]!.id, task)
  console.log(`${text}\n  → ${result.route} to ${result.delegatedTo}: ${result.message}`)
  if (result.runId) {
    const run = await waitForSwarmRun(stores.swarms, result.runId)
    console.log(`  swarm run ${run.status} after ${run.events.length} events: ${run.output}`)
  }
}

const missing = await delegation.delegate('user', 'nobody', 'hello?')
console.log(`@nobody → success: ${missing.success}, ${missing.message}`)
await stores.bus.close()
