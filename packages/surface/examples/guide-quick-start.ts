// The quick start of the surface guide in docs/, kept here so a test runs it as shown.
import { createInProcessSwarmRunner } from '@baton/mal'
import { createBatonStores, createDelegation, waitForSwarmRun } from '@baton/surface/vanilla'

const worker = (id: string, wallet: string, canDelegate = false) => ({
  id,
  name: id[0]!.toUpperCase() + id.slice(1),
  wallet,
  creator: wallet,
  type: 'worker',
  model: 'offline:default',
  agentCard: { canDelegate },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
})

const stores = createBatonStores({
  agents: [
    worker('ops', '0x0000000000000000000000000000000000000001', true),
    worker('analyst', '0x0000000000000000000000000000000000000002'),
  ],
  swarms: [
    {
      id: 'duo',
      name: 'Duo',
      strategy: 'round-robin',
      maxRounds: 1,
      agents: [{ agentId: 'analyst', role: 'worker' }],
    },
  ],
  runner: ({ agents, swarms }) =>
    createInProcessSwarmRunner({
      swarms: (id) => swarms.getState().getSwarm(id),
      agents: (id) => agents.getState().getById(id),
    }),
})
const { delegate } = createDelegation(stores)

console.log(await delegate('user', 'ops', 'triage the alerts')) // route 'message'
console.log(await delegate('user', 'analyst', 'sum Q1')) // route 'direct'
const swarm = await delegate('user', 'swarm_duo', 'compare Q1 and Q2') // route 'swarm'
console.log((await waitForSwarmRun(stores.swarms, swarm.runId!)).output)
console.log(await delegate('user', 'swarm_no good', 'x')) // success: false, INVALID_SWARM_ID
await stores.bus.close()
