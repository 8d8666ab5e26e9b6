import { describe, expect, it } from 'vitest'
import { makeSwarm } from '../__fixtures__/agents'
import { inProcessRunnerFor } from '../__fixtures__/swarm-runner'
import type { SwarmRunner } from '../swarm-runner/types'
import { type AdvancedAgentStore, createAdvancedAgentStore } from './create-advanced-agent-store'
import { waitForSwarmRun } from './wait-for-swarm-run'

function inProcessStore(): AdvancedAgentStore {
  let swarms!: AdvancedAgentStore
  swarms = createAdvancedAgentStore({
    runner: inProcessRunnerFor(() => swarms),
    swarms: [makeSwarm()],
  })
  return swarms
}

describe('waitForSwarmRun', () => {
  it('reports a run whose member fails in round 1 as failed, with the reason', async () => {
    const swarms = inProcessStore()
    // The offline model fails on this directive: the first member fails in round 1.
    const runId = await swarms
      .getState()
      .startSwarmRun('research', 'Compare Q1 and Q2 [[fail:the analyst model is down]]')
    const run = await waitForSwarmRun(swarms, runId)
    expect(run.status).toBe('failed')
    expect(run.error?.message).toContain('the analyst model is down')
    await expect(waitForSwarmRun(swarms, runId, { rejectOnFailure: true })).rejects.toMatchObject({
      code: 'SWARM_RUN_FAILED',
      message: expect.stringContaining('the analyst model is down'),
      details: { runId, swarmId: 'research', status: 'failed' },
    })
  })

  it('resolves a run that succeeds as done with its output, rejectOnFailure or not', async () => {
    const swarms = inProcessStore()
    const runId = await swarms.getState().startSwarmRun('research', 'Compare Q1 and Q2')
    const run = await waitForSwarmRun(swarms, runId, { rejectOnFailure: true })
    expect(run).toMatchObject({ status: 'done', output: expect.stringContaining('Q1') })
    expect(run.error).toBeUndefined()
  })

  it('gives a failed run a reason even when its runner gave none', async () => {
    const runner: SwarmRunner = {
      start: async () => 'run-1',
      subscribe: (runId, onEvent) => {
        queueMicrotask(() =>
          onEvent({ type: 'swarm-finish', runId, result: { status: 'failed', output: '' } }),
        )
        return () => {}
      },
    }
    const swarms = createAdvancedAgentStore({ runner, swarms: [makeSwarm()] })
    const runId = await swarms.getState().startSwarmRun('research', 'anything')
    const run = await waitForSwarmRun(swarms, runId)
    expect(run).toMatchObject({ status: 'failed', error: { code: 'SWARM_RUN_FAILED' } })
  })
})
