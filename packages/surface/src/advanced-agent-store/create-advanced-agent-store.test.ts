import { afterEach, describe, expect, it } from 'vitest'
import { makeAgent, makeSwarm } from '../__fixtures__/agents'
import { sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import { inProcessRunnerFor, settled } from '../__fixtures__/swarm-runner'
import { InvalidSwarmIdError } from '../swarm-agent/invalid-swarm-id-error'
import type { SwarmRunEvent, SwarmRunner } from '../swarm-runner/types'
import { type AdvancedAgentStore, createAdvancedAgentStore } from './create-advanced-agent-store'
import {
  SwarmRunnerMissingError,
  SwarmRunStartError,
  SwarmsUnavailableError,
  UnknownSwarmError,
} from './swarm-run-errors'

/** A runner that records what it was asked; `start` and `subscribe` do what each test says. */
function scriptedRunner(script: Partial<SwarmRunner>) {
  const calls: string[] = []
  const runner: SwarmRunner = {
    async start(swarmId, task) {
      calls.push(`start ${swarmId} ${task}`)
      return script.start ? script.start(swarmId, task) : 'run-1'
    },
    subscribe(runId, onEvent) {
      calls.push(`subscribe ${runId}`)
      return script.subscribe ? script.subscribe(runId, onEvent) : () => {}
    },
    cancel(runId) {
      calls.push(`cancel ${runId}`)
      return true
    },
  }
  return { runner, calls }
}

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('createAdvancedAgentStore', () => {
  it('runs a swarm with the in-process runner and the offline model, events arriving in order', async () => {
    let store!: AdvancedAgentStore
    store = createAdvancedAgentStore({
      runner: inProcessRunnerFor(() => store),
      swarms: [makeSwarm()],
    })
    const runId = await store.getState().startSwarmRun('research', 'Compare Q1 and Q2 revenue')
    expect(store.getState().runs[runId]).toMatchObject({ swarmId: 'research' })
    await settled(store, runId)
    const run = store.getState().runs[runId]!
    expect(run.status).toBe('done')
    expect(run.output).toMatch(/Q1 and Q2/)
    const types = run.events.map((event) => event.type)
    expect(types[0]).toBe('swarm-start')
    expect(types.at(-1)).toBe('swarm-finish')
    expect(types).toContain('swarm-message')
    expect(run.events.every((event) => event.runId === runId)).toBe(true)
    expect(run.round).toBe(1)
  })

  it('refuses a malformed swarm id, an unknown swarm and an empty task without starting anything', async () => {
    const { runner, calls } = scriptedRunner({})
    const store = createAdvancedAgentStore({ runner, swarms: [makeSwarm()] })
    const state = store.getState()
    await expect(state.startSwarmRun('bad id', 'x')).rejects.toThrow(InvalidSwarmIdError)
    await expect(state.startSwarmRun('', 'x')).rejects.toThrow(InvalidSwarmIdError)
    await expect(state.startSwarmRun('nope', 'x')).rejects.toThrow(UnknownSwarmError)
    await expect(state.startSwarmRun('research', '   ')).rejects.toThrow(/task: must not be empty/)
    expect(calls).toEqual([])
    expect(store.getState().runs).toEqual({})
  })

  it('rejects with SwarmRunnerMissingError when it has no runner', async () => {
    const store = createAdvancedAgentStore({ swarms: [makeSwarm()] })
    await expect(store.getState().startSwarmRun('research', 'go')).rejects.toThrow(
      SwarmRunnerMissingError,
    )
  })

  it('reports the runner’s own message when a run cannot start, leaving no run behind', async () => {
    let store!: AdvancedAgentStore
    store = createAdvancedAgentStore({
      runner: inProcessRunnerFor(() => store),
      swarms: [makeSwarm({ agents: [{ agentId: 'ghost', role: 'worker' }] })],
    })
    const error = await store
      .getState()
      .startSwarmRun('research', 'go')
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SwarmRunStartError)
    expect((error as SwarmRunStartError).message).toMatch(
      /Swarm "research" could not start: .*ghost/,
    )
    expect(store.getState().runs).toEqual({})
  })

  it('cancels and forgets a run whose events cannot be watched', async () => {
    const { runner, calls } = scriptedRunner({
      subscribe() {
        throw new Error('event stream refused')
      },
    })
    const store = createAdvancedAgentStore({ runner, swarms: [makeSwarm()] })
    await expect(store.getState().startSwarmRun('research', 'go')).rejects.toThrow(
      /could not start: event stream refused/,
    )
    expect(calls).toEqual(['start research go', 'subscribe run-1', 'cancel run-1'])
    expect(store.getState().runs).toEqual({})
  })

  it('records swarm-error, and stops listening after swarm-finish', async () => {
    let emit: (event: SwarmRunEvent) => void = () => {}
    let unsubscribed = 0
    const { runner } = scriptedRunner({
      subscribe(_runId, onEvent) {
        emit = onEvent
        return () => {
          unsubscribed += 1
        }
      },
    })
    const store = createAdvancedAgentStore({ runner, swarms: [makeSwarm()] })
    const runId = await store.getState().startSwarmRun('research', 'go')
    emit({
      type: 'swarm-error',
      runId,
      error: { code: 'BUDGET_EXCEEDED', message: 'out of money' },
    })
    expect(store.getState().runs[runId]).toMatchObject({
      status: 'failed',
      error: { code: 'BUDGET_EXCEEDED' },
    })
    emit({ type: 'swarm-finish', runId, result: { status: 'failed', output: '' } })
    expect(unsubscribed).toBe(1)
    store.getState().forgetSwarmRun(runId)
    expect(store.getState().runs).toEqual({})
  })

  it('keeps the first event and the latest ones when a run has more than maxEventsPerRun', async () => {
    let emit: (event: SwarmRunEvent) => void = () => {}
    const { runner } = scriptedRunner({
      subscribe(_runId, onEvent) {
        emit = onEvent
        return () => {}
      },
    })
    const store = createAdvancedAgentStore({ runner, swarms: [makeSwarm()], maxEventsPerRun: 3 })
    const runId = await store.getState().startSwarmRun('research', 'go')
    emit({ type: 'swarm-start', runId, swarmId: 'research', task: 'go' })
    for (const round of [1, 2, 3]) emit({ type: 'round-start', runId, round })
    const events = store.getState().runs[runId]!.events
    expect(events.map((event) => event.type)).toEqual(['swarm-start', 'round-start', 'round-start'])
    expect(store.getState().runs[runId]!.round).toBe(3)
    // A member's streamed text is live only: it never pushes the run's events out.
    for (const text of ['a', 'b', 'c']) {
      emit({ type: 'step-delta', runId, round: 3, path: 'r3/ana', agentId: 'ana', text })
    }
    expect(store.getState().runs[runId]!.events).toEqual(events)
  })

  it('cancels a slow run through the in-process runner', async () => {
    const slow = makeAgent({ id: 'slow', name: 'Slow', persona: 'Think long. [[sleep:5000]]' })
    let store!: AdvancedAgentStore
    const { createInProcessSwarmRunner } = await import('@baton/mal')
    store = createAdvancedAgentStore({
      runner: createInProcessSwarmRunner({
        swarms: (swarmId) => store.getState().getSwarm(swarmId),
        agents: [slow],
      }),
      swarms: [makeSwarm({ agents: [{ agentId: 'slow', role: 'worker' }] })],
    })
    const runId = await store.getState().startSwarmRun('research', 'go')
    expect(await store.getState().cancelSwarmRun(runId)).toBe(true)
    await settled(store, runId)
    expect(store.getState().runs[runId]!.status).toBe('cancelled')
    expect(await store.getState().cancelSwarmRun(runId)).toBe(false)
  })

  it('loads swarms from GET {baseUrl}/swarms and refuses a failing server', async () => {
    let status = 200
    server = await startServer((_request, response) =>
      sendJson(response, status, { swarms: [makeSwarm()] }),
    )
    const store = createAdvancedAgentStore()
    await store.getState().loadSwarms({ baseUrl: server.baseUrl })
    expect(store.getState().getSwarm('research')?.name).toBe('Research Swarm')
    status = 502
    await expect(store.getState().loadSwarms({ baseUrl: server.baseUrl })).rejects.toThrow(
      SwarmsUnavailableError,
    )
    expect(store.getState().swarms).toHaveLength(1)
  })

  it('loads { swarms } from a function and refuses a body that holds no list, keeping the old swarms', async () => {
    const store = createAdvancedAgentStore()
    await store.getState().loadSwarms(async () => ({ swarms: [makeSwarm()] }))
    expect(store.getState().swarms.map((swarm) => swarm.id)).toEqual(['research'])
    await expect(store.getState().loadSwarms(async () => ({ agents: [] }))).rejects.toThrow(
      /swarm list: .*expected a list of swarms or \{ swarms: \[\.\.\.\] \}/,
    )
    await expect(
      store.getState().loadSwarms(async () => [makeSwarm({ id: 'ok' }), { id: 'bad id' }]),
    ).rejects.toThrow(/swarms\[1\]/)
    expect(store.getState().swarms.map((swarm) => swarm.id)).toEqual(['research'])
  })

  it('refuses options it cannot work with when it is made, naming each bad one', () => {
    const make = (options: unknown) => () =>
      createAdvancedAgentStore(options as Parameters<typeof createAdvancedAgentStore>[0])
    expect(make({ runner: { start: () => 'run-1' } })).toThrow(
      /Invalid createAdvancedAgentStore options: runner: must be a SwarmRunner/,
    )
    expect(make({ maxEventsPerRun: 1 })).toThrow(/maxEventsPerRun/)
    expect(make({ maxEventsPerRun: Number.NaN })).toThrow(/maxEventsPerRun/)
    expect(make({ swarms: 'research' })).toThrow(/swarms: must be a list of swarms/)
  })

  it('validates swarms it is given and replaces one with the same id', () => {
    const store = createAdvancedAgentStore()
    expect(() => store.getState().setSwarms([{ id: 'x' }])).toThrow(/swarms\[0\]/)
    store.getState().upsertSwarm(makeSwarm())
    store.getState().upsertSwarm(makeSwarm({ name: 'Renamed' }))
    expect(store.getState().swarms.map((swarm) => swarm.name)).toEqual(['Renamed'])
    expect(store.getState().removeSwarm('research')).toBe(true)
    expect(store.getState().removeSwarm('research')).toBe(false)
  })
})
