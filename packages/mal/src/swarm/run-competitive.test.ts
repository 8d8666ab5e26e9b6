import { createBudget } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = [
  makeAgent({ id: 'ana' }),
  makeAgent({ id: 'ben' }),
  makeAgent({ id: 'lead', type: 'orchestrator' }),
  makeAgent({ id: 'rex', type: 'reviewer' }),
]
const swarm = (
  members: { agentId: string; role: 'leader' | 'worker' | 'critic'; priority?: number }[],
) => ({
  id: 'contest',
  name: 'Contest',
  strategy: 'competitive' as const,
  agents: members,
})

describe('runSwarm (competitive)', () => {
  it('has every member answer and the critic pick the best by a structured verdict with reasons', async () => {
    const calls: ScriptedCall[] = []
    const runMember = scriptedRunMember((member, _prompt, options) => {
      if (options.kind === 'vote') {
        expect(options.structured?.name).toBe('judgement')
        return '{"winner": 1, "reasons": "ben cites the logs"}'
      }
      return `${member.agentId}'s answer`
    }, calls)
    const result = await runSwarm(
      swarm([
        { agentId: 'lead', role: 'leader' },
        { agentId: 'ana', role: 'worker' },
        { agentId: 'ben', role: 'worker' },
        { agentId: 'rex', role: 'critic' },
      ]),
      'Explain the outage',
      { agents, runMember, budget: createBudget({ calls: 10 }) },
    )
    expect(result.status).toBe('done')
    // The critic judges; the leader competes like any member.
    expect(calls.filter((call) => call.kind === 'proposal').map((call) => call.agentId)).toEqual([
      'lead',
      'ana',
      'ben',
    ])
    expect(result.verdict).toEqual({ winner: 'ana', reasons: 'ben cites the logs', judge: 'rex' })
    expect(result.output).toBe("ana's answer")
    expect(result.usage.calls).toBe(4)
  })

  it('is judged by the leader without a critic, and by priority when the verdict is junk', async () => {
    const runMember = scriptedRunMember((member, _prompt, options) =>
      options.kind === 'vote' ? 'they are all fine' : `${member.agentId}'s answer`,
    )
    const result = await runSwarm(
      swarm([
        { agentId: 'lead', role: 'leader' },
        { agentId: 'ana', role: 'worker', priority: 1 },
        { agentId: 'ben', role: 'worker', priority: 5 },
      ]),
      'Explain the outage',
      { agents, runMember },
    )
    expect(result.verdict?.judge).toBe('lead')
    expect(result.verdict?.winner).toBe('ben')
    expect(result.verdict?.reasons).toMatch(/no valid verdict from lead/)
    expect(result.output).toBe("ben's answer")
  })

  it('runs on the default member (offline model) to a winner', async () => {
    const result = await runSwarm(
      swarm([
        { agentId: 'ana', role: 'worker' },
        { agentId: 'ben', role: 'worker' },
        { agentId: 'rex', role: 'critic' },
      ]),
      'Explain the outage',
      { agents, budget: createBudget({ calls: 10 }) },
    )
    expect(result.status).toBe('done')
    expect(['ana', 'ben']).toContain(result.verdict?.winner)
    expect(result.output.length).toBeGreaterThan(0)
  })
})
