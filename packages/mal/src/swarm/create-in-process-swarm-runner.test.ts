import { createBudget } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { createInProcessSwarmRunner } from './create-in-process-swarm-runner'
import type { SwarmEvent } from './types'

const agents = ['ana', 'ben'].map((id) => makeAgent({ id }))
const relay = {
  id: 'relay',
  name: 'Relay',
  strategy: 'round-robin' as const,
  maxRounds: 1,
  agents: [
    { agentId: 'ana', role: 'worker' as const },
    { agentId: 'ben', role: 'worker' as const },
  ],
}

function finished(runner: ReturnType<typeof createInProcessSwarmRunner>, runId: string) {
  return new Promise<SwarmEvent[]>((resolve) => {
    const events: SwarmEvent[] = []
    runner.subscribe(runId, (event) => {
      events.push(event)
      if (event.type === 'swarm-finish') resolve(events)
    })
  })
}

describe('createInProcessSwarmRunner', () => {
  it('delivers a run’s events in order to a subscriber that attaches right after start', async () => {
    const runner = createInProcessSwarmRunner({
      swarms: [relay],
      agents,
      runMember: scriptedRunMember((member) => `${member.agentId} says hi`),
    })
    const runId = await runner.start('relay', 'Say hi')
    const events = await finished(runner, runId)
    expect(events.map((event) => event.type)).toEqual([
      'swarm-start',
      'round-start',
      'swarm-message',
      'swarm-message',
      'swarm-message',
      'round-finish',
      'swarm-finish',
    ])
    expect(events[0]).toEqual({
      type: 'swarm-start',
      runId,
      swarmId: 'relay',
      strategy: 'round-robin',
      task: 'Say hi',
    })
    expect(events.every((event) => event.runId === runId)).toBe(true)
    expect(runner.get(runId)).toMatchObject({ status: 'done', output: 'ben says hi' })
  })

  it('replays the buffered events to a subscriber that attaches after the run finished', async () => {
    const runner = createInProcessSwarmRunner({
      swarms: (id) => (id === 'relay' ? relay : undefined),
      agents,
      runMember: scriptedRunMember((member) => `${member.agentId} says hi`),
    })
    const runId = await runner.start('relay', 'Say hi')
    const live = await finished(runner, runId)
    const late: SwarmEvent[] = []
    const unsubscribe = runner.subscribe(runId, (event) => late.push(event))
    expect(late).toEqual(live)
    unsubscribe()
  })

  it('keeps the swarm-start when the replay buffer overflows', async () => {
    const runner = createInProcessSwarmRunner({
      swarms: [{ ...relay, maxRounds: 5 }],
      agents,
      maxBufferedEvents: 4,
      runMember: scriptedRunMember((member) => member.agentId),
    })
    const runId = await runner.start('relay', 'Talk')
    await finished(runner, runId)
    const late: SwarmEvent[] = []
    runner.subscribe(runId, (event) => late.push(event))
    expect(late.map((event) => event.type)).toEqual([
      'swarm-start',
      'swarm-message',
      'round-finish',
      'swarm-finish',
    ])
  })

  it('rejects an unknown swarm, and a swarm with a missing member, before any run starts', async () => {
    const calls: unknown[] = []
    const runner = createInProcessSwarmRunner({
      swarms: [
        relay,
        { ...relay, id: 'broken', agents: [{ agentId: 'ghost', role: 'worker' as const }] },
        { ...relay, id: 'invalid', strategy: 'hierarchical' as const },
      ],
      agents,
      runMember: scriptedRunMember(() => 'hi', calls as never),
    })
    await expect(runner.start('nope', 'x')).rejects.toMatchObject({
      code: 'SWARM_NOT_FOUND',
      message: expect.stringContaining('"nope"'),
    })
    await expect(runner.start('broken', 'x')).rejects.toMatchObject({
      code: 'SWARM_MEMBER_NOT_FOUND',
      message: expect.stringContaining('agents[0] "ghost"'),
    })
    await expect(runner.start('invalid', 'x')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('a hierarchical swarm needs a leader'),
    })
    expect(calls).toHaveLength(0)
  })

  it('cancels a run in progress: the member call is aborted and the run ends cancelled', async () => {
    let started!: () => void
    const firstCall = new Promise<void>((resolve) => {
      started = resolve
    })
    const runner = createInProcessSwarmRunner({
      swarms: [relay],
      agents,
      runMember: scriptedRunMember(
        (_member, _prompt, options) =>
          new Promise<string>((_resolve, reject) => {
            started()
            options.signal.addEventListener('abort', () => reject(options.signal.reason))
          }),
      ),
    })
    const runId = await runner.start('relay', 'Wait')
    const done = finished(runner, runId)
    await firstCall
    expect(runner.get(runId)).toBeUndefined()
    expect(runner.cancel(runId)).toBe(true)
    const events = await done
    expect(events.at(-2)).toMatchObject({ type: 'swarm-error', error: { code: 'CANCELLED' } })
    expect(runner.get(runId)).toMatchObject({
      status: 'cancelled',
      error: { code: 'CANCELLED', message: expect.stringContaining(runId) },
      usage: { calls: 0 },
    })
    expect(runner.cancel(runId)).toBe(false)
    expect(runner.cancel('unknown')).toBe(false)
  })

  it('runs members on the offline model and charges the shared budget to their wallets', async () => {
    const budget = createBudget({ cost: 1 })
    const runner = createInProcessSwarmRunner({
      swarms: [relay],
      agents: agents.map((agent) => ({ ...agent, persona: `[[answer:${agent.id} was here]]` })),
      budget,
    })
    const runId = await runner.start('relay', 'Sign the guest book')
    await finished(runner, runId)
    const result = runner.get(runId)!
    expect(result).toMatchObject({ status: 'done', output: 'ben was here', usage: { calls: 2 } })
    expect(budget.spent().costUsd).toBeCloseTo(result.usage.costUsd, 12)
    expect(budget.spentByWallet()[agents[0]!.wallet]).toEqual(result.usageByAgent.ana)
  })
})
