import {
  createCommunicationStore,
  createMessageBus,
  type Envelope,
  type MessageBus,
  type Transport,
} from '@baton/comm'
import { afterEach, describe, expect, it } from 'vitest'
import { analyst, critic, makeSwarm, ops, opsOrchestrator } from '../__fixtures__/agents'
import { inProcessRunnerFor, settled } from '../__fixtures__/swarm-runner'
import {
  type AdvancedAgentStore,
  createAdvancedAgentStore,
} from '../advanced-agent-store/create-advanced-agent-store'
import { createAgentStore } from '../agent-store/create-agent-store'
import type { SwarmRunner } from '../swarm-runner/types'
import { createDelegation } from './create-delegation'

const buses: MessageBus[] = []
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()))
})

function setUp(options: { runner?: SwarmRunner; maxHops?: number } = {}) {
  const bus = createMessageBus({ loopGuard: { maxHops: options.maxHops ?? 4 } })
  buses.push(bus)
  const sent: Envelope[] = []
  bus.on('message', (envelope) => sent.push(envelope))
  const agents = createAgentStore([analyst, critic, ops, opsOrchestrator])
  let swarms!: AdvancedAgentStore
  swarms = createAdvancedAgentStore({
    runner: options.runner ?? inProcessRunnerFor(() => swarms),
    swarms: [makeSwarm()],
  })
  const delegation = createDelegation({ agents, swarms, comm: createCommunicationStore(bus) })
  return { bus, sent, agents, swarms, delegation }
}

describe('createDelegation', () => {
  it('reports a target that is not found, naming the id, and sends nothing', async () => {
    const { delegation, sent, swarms } = setUp()
    const result = await delegation.delegate('analyst', 'nobody', 'do it')
    expect(result).toMatchObject({ success: false, errorCode: 'AGENT_NOT_FOUND' })
    expect(result.delegatedTo).toBeUndefined()
    expect(result.message).toContain('"nobody"')
    const unknownSwarm = await delegation.delegate('analyst', 'swarm_unknown', 'do it')
    expect(unknownSwarm).toMatchObject({ success: false, errorCode: 'SWARM_NOT_FOUND' })
    expect(unknownSwarm.message).toContain('swarm_unknown')
    expect(sent).toEqual([])
    expect(swarms.getState().runs).toEqual({})
  })

  it.each(['swarm_', 'swarm_bad id', 'swarm_a/b', 'swarm_research!'])(
    'starts nothing for the malformed swarm id %j',
    async (id) => {
      const started: string[] = []
      const runner: SwarmRunner = {
        start: async (swarmId) => {
          started.push(swarmId)
          return 'run-1'
        },
        subscribe: () => () => {},
      }
      const { delegation, sent, swarms } = setUp({ runner })
      const result = await delegation.delegate('analyst', id, 'do it')
      expect(result).toMatchObject({ success: false, errorCode: 'INVALID_SWARM_ID' })
      expect(result.delegatedTo).toBeUndefined()
      expect(result.message).toContain(`"${id}"`)
      expect(started).toEqual([])
      expect(sent).toEqual([])
      expect(swarms.getState().runs).toEqual({})
    },
  )

  it('reports the error’s message when a swarm run fails to start, leaving nothing half-started', async () => {
    const runner: SwarmRunner = {
      start: async () => {
        throw new Error('the swarm server is down')
      },
      subscribe: () => () => {},
    }
    const { delegation, swarms, sent } = setUp({ runner })
    const result = await delegation.delegate('analyst', 'swarm_research', 'do it')
    expect(result).toMatchObject({ success: false, errorCode: 'SWARM_RUN_START_FAILED' })
    expect(result.message).toContain('the swarm server is down')
    expect(result.delegatedTo).toBeUndefined()
    expect(swarms.getState().runs).toEqual({})
    expect(sent).toEqual([])
  })

  it('enqueues a direct A2A message with a new correlation id for an agent that can delegate', async () => {
    const { delegation, bus, sent } = setUp()
    const received: Envelope[] = []
    bus.subscribe('ops', (envelope) => {
      received.push(envelope)
    })
    const first = await delegation.delegate('analyst', 'ops', 'review yesterday’s incidents')
    const second = await delegation.delegate('analyst', 'ops', 'and today’s')
    expect(first).toMatchObject({ success: true, delegatedTo: 'ops', route: 'message' })
    expect(sent).toHaveLength(2)
    expect(sent[0]).toMatchObject({
      type: 'direct',
      hop: 0,
      from: { agentId: 'analyst', agentName: 'Analyst', agentRole: 'worker' },
      to: { agentId: 'ops' },
      content: 'review yesterday’s incidents',
      correlationId: first.correlationId,
    })
    expect(second.correlationId).not.toBe(first.correlationId)
    expect(received.map((envelope) => envelope.content)).toEqual([
      'review yesterday’s incidents',
      'and today’s',
    ])
  })

  it('creates a swarm run for a swarm agent, which completes with the offline model', async () => {
    const { delegation, swarms, sent } = setUp()
    const result = await delegation.delegate('analyst', 'swarm_research', 'summarise the churn')
    expect(result).toMatchObject({ success: true, delegatedTo: 'swarm:research', route: 'swarm' })
    await settled(swarms, result.runId!)
    expect(swarms.getState().runs[result.runId!]).toMatchObject({ status: 'done' })
    expect(sent).toEqual([])
  })

  it('routes nothing for a regular agent: the caller runs it', async () => {
    const { delegation, sent, swarms } = setUp()
    const result = await delegation.delegate('ops', 'analyst', 'compare Q1 and Q2')
    expect(result).toMatchObject({ success: true, delegatedTo: 'analyst', route: 'direct' })
    expect(result.correlationId).toBeUndefined()
    expect(sent).toEqual([])
    expect(swarms.getState().runs).toEqual({})
  })

  it('reports a loop guard refusal of the first message instead of swallowing it', async () => {
    const { delegation } = setUp()
    const result = await delegation.delegate('ops', 'ops', 'talk to yourself')
    expect(result).toMatchObject({ success: false, errorCode: 'LOOP_GUARD_SELF' })
    expect(result.message).toMatch(/^Could not send the task to Ops Orchestrator: /)
  })

  it('reports a signature refusal when the bus requires signed envelopes', async () => {
    const bus = createMessageBus({ requireSignatures: true, resolveWallet: () => analyst.wallet })
    buses.push(bus)
    const delegation = createDelegation({
      agents: createAgentStore([analyst, opsOrchestrator]),
      swarms: createAdvancedAgentStore(),
      comm: bus,
    })
    const result = await delegation.delegate('analyst', 'ops', 'unsigned')
    expect(result).toMatchObject({ success: false, errorCode: 'SIGNATURE_INVALID' })
    expect(bus.correlations()).toEqual([])
  })

  it('awaits and reports a transport error when the rail cannot take the message', async () => {
    let attempts = 0
    const refusingRail: Transport = {
      name: 'flaky',
      start: async () => {},
      publish: async () => {
        attempts += 1
        // Fail after a turn of the event loop, so a send that is not awaited would miss it.
        await new Promise((resolve) => setTimeout(resolve, 5))
        throw new Error('connection reset by peer')
      },
      close: async () => {},
    }
    const bus = createMessageBus({ transport: refusingRail })
    buses.push(bus)
    const delegation = createDelegation({
      agents: createAgentStore([analyst, opsOrchestrator]),
      swarms: createAdvancedAgentStore(),
      comm: createCommunicationStore(bus),
    })
    const result = await delegation.delegate('analyst', 'ops', 'anyone there?')
    expect(attempts).toBe(1)
    expect(result).toMatchObject({ success: false, errorCode: 'TRANSPORT_FAILED' })
    expect(result.delegatedTo).toBeUndefined()
    expect(result.message).toMatch(/^Could not send the task to Ops Orchestrator: flaky rail: /)
    expect(result.message).toContain('connection reset by peer')
    expect(bus.correlations()).toEqual([])
  })

  it('reports a bus that is already closed', async () => {
    const { delegation, bus } = setUp()
    await bus.close()
    const result = await delegation.delegate('analyst', 'ops', 'anyone there?')
    expect(result).toMatchObject({ success: false, errorCode: 'BUS_CLOSED' })
    expect(result.message).toContain('Ops Orchestrator')
  })

  it('refuses an empty task or id without routing', async () => {
    const { delegation, sent } = setUp()
    const result = await delegation.delegate('analyst', 'ops', '   ')
    expect(result).toMatchObject({ success: false, errorCode: 'VALIDATION_FAILED' })
    expect(result.message).toContain('task: must not be empty')
    expect((await delegation.delegate('', 'ops', 'x')).success).toBe(false)
    expect(sent).toEqual([])
  })

  it('keeps the correlation id over three forwards, and the loop guard escalates at the configured hop', async () => {
    const { delegation, bus } = setUp({ maxHops: 3 })
    const escalations: string[] = []
    bus.on('escalation', (escalation) => escalations.push(escalation.correlationId))
    const started = await delegation.delegate('analyst', 'ops', 'pass it around')
    let message = started.envelope!
    const chain = ['critic', 'analyst', 'critic']
    for (const next of chain) {
      const forwarded = await delegation.forward(message, next)
      expect(forwarded).toMatchObject({ success: true, correlationId: started.correlationId })
      message = forwarded.envelope!
    }
    expect(message.hop).toBe(3)
    expect(bus.history(started.correlationId!).map((envelope) => envelope.hop)).toEqual([
      0, 1, 2, 3,
    ])
    const held = await delegation.forward(message, 'analyst')
    expect(held).toMatchObject({ success: true, held: true, errorCode: 'LOOP_GUARD_ESCALATED' })
    expect(escalations).toEqual([started.correlationId])
    // The chain had made 3 hops when the 4th was held for a person.
    expect(bus.escalations()[0]).toMatchObject({
      status: 'open',
      hops: 3,
      lastMessage: { hop: 4, correlationId: started.correlationId, to: { agentId: 'analyst' } },
    })
  })

  it('reports a held forward as held (delivered after allow) and a dropped one as not sent', async () => {
    const { delegation, bus } = setUp({ maxHops: 1 })
    const received: Envelope[] = []
    bus.subscribe('critic', (envelope) => {
      received.push(envelope)
    })
    const started = await delegation.delegate('analyst', 'ops', 'pass it on')
    const first = await delegation.forward(started.envelope!, 'analyst')
    expect(first.success).toBe(true)
    expect(first.held).toBeUndefined()
    const held = await delegation.forward(first.envelope!, 'critic', 'the held one')
    expect(held).toMatchObject({
      success: true,
      held: true,
      delegatedTo: 'critic',
      correlationId: started.correlationId,
      escalationId: bus.escalations()[0]?.id,
    })
    const dropped = await delegation.forward(first.envelope!, 'critic', 'the dropped one')
    expect(dropped).toMatchObject({ success: false, errorCode: 'LOOP_GUARD_ESCALATED' })
    expect(dropped.held).toBeUndefined()
    expect(dropped.message).toMatch(/dropped/)
    await bus.allow(held.escalationId!, 2)
    await bus.settled()
    // Only the held message reaches the agent; the dropped one never does.
    expect(received.map((envelope) => envelope.content)).toEqual(['the held one'])
  })

  it('refuses stores it cannot route with when it is made, naming each one', () => {
    const make = (options: unknown) => () =>
      createDelegation(options as Parameters<typeof createDelegation>[0])
    expect(make({ agents: [analyst], swarms: createAdvancedAgentStore(), comm: {} })).toThrow(
      /Invalid createDelegation options: agents: must be an agent store.*comm: must be a message bus/,
    )
    expect(make(undefined)).toThrow(/Invalid createDelegation options/)
  })

  it('sends through the bus itself as well as through the communication store', async () => {
    const bus = createMessageBus()
    buses.push(bus)
    const delegation = createDelegation({
      agents: createAgentStore([opsOrchestrator]),
      swarms: createAdvancedAgentStore(),
      comm: bus,
    })
    const result = await delegation.delegate('user', 'ops', 'hello')
    expect(result.envelope).toMatchObject({ from: { agentId: 'user' }, hop: 0 })
    expect(result.envelope?.from.agentName).toBeUndefined()
  })
})
