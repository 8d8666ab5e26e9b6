import { createBudget } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'
import type { SwarmEvent } from './types'

const trio = ['ana', 'ben', 'cleo'].map((id) => makeAgent({ id }))
const relay = {
  id: 'relay',
  name: 'Relay',
  strategy: 'round-robin' as const,
  maxRounds: 3,
  agents: trio.map((agent) => ({ agentId: agent.id, role: 'worker' as const })),
}

function sum(values: { calls: number; tokens: number; costUsd: number }[]) {
  return values.reduce(
    (total, value) => ({
      calls: total.calls + value.calls,
      tokens: total.tokens + value.tokens,
      costUsd: total.costUsd + value.costUsd,
    }),
    { calls: 0, tokens: 0, costUsd: 0 },
  )
}

describe('runSwarm', () => {
  it('reaches consensus on the offline model with votes given as JSON', async () => {
    const agents = [
      makeAgent({ id: 'ana', persona: '[[json:{"proposal":1}]]' }),
      makeAgent({ id: 'ben', persona: '[[json:{"proposal":1}]]' }),
      makeAgent({ id: 'cleo', persona: '[[json:{"proposal":0}]]' }),
    ]
    const result = await runSwarm({ ...relay, strategy: 'democratic' }, 'Choose', { agents })
    expect(result).toMatchObject({ status: 'done', consensusReached: true })
    expect(result.rounds[0]!.tally?.weights).toEqual([1, 2, 0])
    expect(result.rounds[0]!.messages.at(-1)).toMatchObject({ kind: 'result', agentId: 'ben' })
  })

  it('stops a run whose budget runs out with BUDGET_EXCEEDED, never spending past it', async () => {
    const budget = createBudget({ calls: 4 })
    const events: SwarmEvent[] = []
    const result = await runSwarm(relay, 'Write a haiku', {
      agents: trio,
      budget,
      onEvent: (event) => events.push(event),
    })
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('BUDGET_EXCEEDED')
    expect(budget.spent().calls).toBe(4)
    expect(result.usage.calls).toBe(4)
    // The second round got as far as its first turn before the budget stopped it.
    expect(result.rounds).toHaveLength(2)
    expect(result.output).toContain('Ana')
    expect(events.slice(-2).map((event) => event.type)).toEqual(['swarm-error', 'swarm-finish'])
  })

  it('attributes every call to the member agent wallet, per agent summing to the total', async () => {
    const budget = createBudget({ cost: 1 })
    const result = await runSwarm({ ...relay, maxRounds: 2 }, 'Write a haiku', {
      agents: trio,
      budget,
    })
    expect(result.status).toBe('done')
    const total = sum(Object.values(result.usageByAgent))
    expect(total.calls).toBe(result.usage.calls)
    expect(total.tokens).toBe(result.usage.tokens)
    expect(total.costUsd).toBeCloseTo(result.usage.costUsd, 12)
    expect(budget.spent().calls).toBe(6)
    const byWallet = budget.spentByWallet()
    for (const agent of trio) {
      expect(result.usageByAgent[agent.id]?.calls).toBe(2)
      expect(byWallet[agent.wallet]).toEqual(result.usageByAgent[agent.id])
    }
  })

  it('stops within a token budget, which a token-hungry run does not overspend', async () => {
    const budget = createBudget({ tokens: 400 })
    const result = await runSwarm(relay, 'Write a long saga '.repeat(20), { agents: trio, budget })
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('BUDGET_EXCEEDED')
    expect(budget.spent().tokens).toBeLessThanOrEqual(400)
    expect(result.usage.tokens).toBe(budget.spent().tokens)
  })

  it('ends cancelled when its signal aborts during a member call', async () => {
    const agents = trio.map((agent) => ({ ...agent, persona: '[[sleep:20000]]' }))
    const controller = new AbortController()
    const events: SwarmEvent[] = []
    const running = runSwarm(relay, 'Wait', {
      agents,
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event)
        if (event.type === 'round-start') setTimeout(() => controller.abort(), 50)
      },
    })
    const result = await running
    expect(result.status).toBe('cancelled')
    expect(result.error?.code).toBe('CANCELLED')
    expect(result.usage.calls).toBe(0)
    expect(events.at(-1)).toMatchObject({ type: 'swarm-finish', result: { status: 'cancelled' } })
  })

  it('fails with the member named when a member call fails', async () => {
    const agents = trio.map((agent) =>
      agent.id === 'ben' ? { ...agent, persona: '[[fail:model overloaded]]' } : agent,
    )
    const result = await runSwarm(relay, 'Go', { agents })
    expect(result.status).toBe('failed')
    expect(result.error?.message).toContain('model overloaded')
    expect(result.rounds[0]!.messages.map((message) => message.agentId)).toEqual(['ana'])
  })

  it('rejects a member id that resolves to no agent, before any call', async () => {
    let calls = 0
    const runMember = scriptedRunMember(() => {
      calls += 1
      return ''
    })
    await expect(
      runSwarm(relay, 'Go', {
        agents: async (agentId) => trio.find((agent) => agent.id === agentId && agentId !== 'cleo'),
        runMember,
      }),
    ).rejects.toMatchObject({
      name: 'SwarmMemberNotFoundError',
      code: 'SWARM_MEMBER_NOT_FOUND',
      agentId: 'cleo',
    })
    await expect(runSwarm({ ...relay, agents: [] }, 'Go', { agents: trio })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    })
    expect(calls).toBe(0)
  })

  it('keeps running when an event listener throws', async () => {
    const result = await runSwarm({ ...relay, maxRounds: 1 }, 'Go', {
      agents: trio,
      runMember: scriptedRunMember((member) => member.agentId),
      onEvent: () => {
        throw new Error('listener bug')
      },
    })
    expect(result).toMatchObject({ status: 'done', output: 'cleo' })
  })

  it('charges usage that a custom runMember reports but did not charge, to the member wallet', async () => {
    const budget = createBudget({ calls: 10 })
    const result = await runSwarm({ ...relay, maxRounds: 1 }, 'Go', {
      agents: trio,
      budget,
      runMember: async (member) => ({
        text: member.agentId,
        usage: { calls: 1, tokens: 10, costUsd: 0.001 },
      }),
    })
    expect(result.usage).toEqual({ calls: 3, tokens: 30, costUsd: 0.003 })
    expect(budget.spent().calls).toBe(3)
    expect(budget.spentByWallet()[trio[1]!.wallet]).toEqual({
      calls: 1,
      tokens: 10,
      costUsd: 0.001,
    })
  })

  it('wraps a plain error of a custom runMember in SWARM_MEMBER_FAILED naming member and round', async () => {
    const result = await runSwarm(relay, 'Go', {
      agents: trio,
      runMember: async (member) => {
        if (member.agentId === 'ben') throw new Error('socket hang up')
        return { text: 'ok', usage: { calls: 1, tokens: 1, costUsd: 0 } }
      },
    })
    expect(result.status).toBe('failed')
    expect(result.error).toEqual({
      code: 'SWARM_MEMBER_FAILED',
      message: 'Member "ben" of swarm "relay" failed in round 1: socket hang up',
    })
  })
})
