import { describe, expect, it } from 'vitest'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = ['ana', 'ben', 'cleo', 'dev'].map((id) => makeAgent({ id }))

const swarm = (overrides: Record<string, unknown> = {}) => ({
  id: 'council',
  name: 'Council',
  strategy: 'democratic' as const,
  agents: [
    { agentId: 'ana', role: 'worker' as const, weight: 1 },
    { agentId: 'ben', role: 'worker' as const, weight: 0.5 },
    { agentId: 'cleo', role: 'worker' as const, weight: 0.5 },
    { agentId: 'dev', role: 'observer' as const },
  ],
  ...overrides,
})

describe('runSwarm (democratic)', () => {
  it('returns the proposal that reaches the weighted consensus threshold', async () => {
    const runMember = scriptedRunMember((member, _prompt, options) => {
      if (options.kind === 'proposal') return `${member.agentId}'s plan`
      // ana and cleo back ben's plan (index 1): 1 + 0.5 of 2 = 75%.
      return member.agentId === 'ben' ? '{"proposal": 0}' : '```json\n{"proposal": 1}\n```'
    })
    const result = await runSwarm(swarm({ consensusThreshold: 0.7 }), 'Pick a plan', {
      agents,
      runMember,
    })
    expect(result.status).toBe('done')
    expect(result.consensusReached).toBe(true)
    expect(result.output).toBe("ben's plan")
    expect(result.rounds).toHaveLength(1)
    const round = result.rounds[0]!
    expect(round.tally).toMatchObject({ weights: [0.5, 1.5, 0], abstained: 0, totalWeight: 2 })
    expect(round.consensusReached).toBe(true)
    // The observer neither proposes nor votes.
    expect(round.messages.some((message) => message.agentId === 'dev')).toBe(false)
    expect(round.messages.at(-1)).toEqual({ kind: 'result', agentId: 'ben', content: "ben's plan" })
  })

  it('returns the best proposal with consensusReached false after exactly maxRounds rounds', async () => {
    const runMember = scriptedRunMember((member, _prompt, options) => {
      if (options.kind === 'proposal') return `${member.agentId}'s plan, round ${options.round}`
      return { ana: '{"proposal": 0}', ben: 'proposal: 1', cleo: 'I vote for whatever' }[
        member.agentId
      ]!
    })
    const result = await runSwarm(swarm({ consensusThreshold: 0.9, maxRounds: 3 }), 'Pick', {
      agents,
      runMember,
    })
    expect(result.status).toBe('done')
    expect(result.consensusReached).toBe(false)
    expect(result.rounds).toHaveLength(3)
    expect(result.rounds.map((round) => round.consensusReached)).toEqual([false, false, false])
    expect(result.rounds[2]!.tally).toMatchObject({ weights: [1, 0.5, 0], abstained: 0.5 })
    expect(result.output).toBe("ana's plan, round 3")
    const votes = result.rounds[0]!.messages.filter((message) => message.kind === 'vote')
    expect(votes.map((vote) => vote.content)).toEqual(['proposal 0', 'proposal 1', 'abstain'])
  })

  it('shows members the previous proposals and tallies in the next round', async () => {
    const prompts: string[] = []
    const runMember = scriptedRunMember((member, prompt, options) => {
      if (options.kind === 'proposal') {
        if (options.round === 2) prompts.push(prompt)
        return `${member.agentId} idea`
      }
      return `{"proposal": ${options.round === 1 ? ['ana', 'ben', 'cleo'].indexOf(member.agentId) : 0}}`
    })
    const result = await runSwarm(swarm({ consensusThreshold: 0.6 }), 'Pick', { agents, runMember })
    expect(result.rounds).toHaveLength(2)
    expect(result.consensusReached).toBe(true)
    expect(prompts[0]).toContain('[1] by ben (Ben), 0.5 votes:\nben idea')
  })

  it('asks for votes as structured output and treats an out-of-range vote as an abstention', async () => {
    const structured: unknown[] = []
    const runMember = scriptedRunMember((_member, _prompt, options) => {
      if (options.kind === 'proposal') return 'same idea'
      structured.push(options.structured)
      return '{"proposal": 7}'
    })
    const result = await runSwarm(swarm({ maxRounds: 1 }), 'Pick', { agents, runMember })
    expect(structured[0]).toMatchObject({ name: 'vote', schema: { required: ['proposal'] } })
    expect(result.rounds[0]!.tally?.abstained).toBe(2)
    expect(result.consensusReached).toBe(false)
  })
})
