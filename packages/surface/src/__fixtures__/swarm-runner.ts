import { createBudget } from '@baton/core'
import { createInProcessSwarmRunner } from '@baton/mal'
import type { AdvancedAgentStore } from '../advanced-agent-store/create-advanced-agent-store'
import { waitForSwarmRun } from '../advanced-agent-store/wait-for-swarm-run'
import type { SwarmRunner } from '../swarm-runner/types'
import { analyst, critic } from './agents'

/** The real in-process runner of @baton/mal, reading swarms from the store, on the offline model. */
export function inProcessRunnerFor(store: () => AdvancedAgentStore): SwarmRunner {
  return createInProcessSwarmRunner({
    swarms: (swarmId) => store().getState().getSwarm(swarmId),
    agents: [analyst, critic],
    budget: createBudget({ costUsd: 1 }),
  })
}

/** Resolves once the store's run is no longer running. */
export async function settled(store: AdvancedAgentStore, runId: string): Promise<void> {
  await waitForSwarmRun(store, runId)
}
