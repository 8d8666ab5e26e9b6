import { createBudget } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const team = (members: { agentId: string; role: 'leader' | 'worker' | 'critic' }[]) => ({
  id: 'desk',
  name: 'Desk',
  strategy: 'hierarchical' as const,
  maxRounds: 3,
  agents: members,
})

describe('runSwarm (hierarchical)', () => {
  it('stops after maxRounds with approved false when the critic never approves (offline model)', async () => {
    const agents = [
      makeAgent({ id: 'lead', type: 'orchestrator' }),
      makeAgent({ id: 'ana' }),
      makeAgent({ id: 'ben' }),
      makeAgent({
        id: 'rex',
        type: 'reviewer',
        persona: '[[answer:Needs sources for every claim.]]',
      }),
    ]
    const budget = createBudget({ calls: 50 })
    const result = await runSwarm(
      {
        ...team([
          { agentId: 'lead', role: 'leader' },
          { agentId: 'ana', role: 'worker' },
          { agentId: 'ben', role: 'worker' },
          { agentId: 'rex', role: 'critic' },
        ]),
        maxRounds: 2,
      },
      'Write a status update on the outage',
      { agents, budget },
    )
    expect(result.status).toBe('done')
    expect(result.approved).toBe(false)
    expect(result.rounds).toHaveLength(2)
    for (const round of result.rounds) {
      expect(round.messages.map((message) => `${message.kind}:${message.agentId}`)).toEqual([
        'plan:lead',
        'assignment:ana',
        'assignment:ben',
        'work:ana',
        'work:ben',
        'result:lead',
        'critique:rex',
      ])
      expect(round.messages.at(-1)?.content).toBe('Needs sources for every claim.')
    }
    expect(result.output).toBe(result.rounds[1]!.messages[5]!.content)
    expect(result.output).toContain('Lead')
    // plan + 2 works + synthesis + review, twice.
    expect(result.usage.calls).toBe(10)
    expect(budget.spent().calls).toBe(10)
  })

  it('sends the critique back to the leader and ends when the critic approves in round 2', async () => {
    const agents = ['lead', 'ana', 'ben', 'rex'].map((id) => makeAgent({ id }))
    const calls: ScriptedCall[] = []
    const runMember = scriptedRunMember((member, _prompt, options) => {
      if (options.kind === 'plan')
        return '1. **ana**: gather the timeline\n2. Ben: draft the summary'
      if (options.kind === 'work') return `${member.agentId} work ${options.round}`
      if (options.kind === 'result') return `combined ${options.round}`
      return options.round === 1 ? 'Name the owner of the fix.' : 'APPROVED — clear and complete.'
    }, calls)
    const result = await runSwarm(
      team([
        { agentId: 'lead', role: 'leader' },
        { agentId: 'ana', role: 'worker' },
        { agentId: 'ben', role: 'worker' },
        { agentId: 'rex', role: 'critic' },
      ]),
      'Write the outage report',
      { agents, runMember },
    )
    expect(result.approved).toBe(true)
    expect(result.rounds).toHaveLength(2)
    expect(result.output).toBe('combined 2')
    expect(result.rounds[1]!.messages.at(-1)).toEqual({
      kind: 'approval',
      agentId: 'rex',
      content: 'APPROVED — clear and complete.',
    })
    const assignments = result.rounds[0]!.messages.filter(
      (message) => message.kind === 'assignment',
    )
    expect(assignments.map((message) => message.content)).toEqual([
      'gather the timeline',
      'draft the summary',
    ])
    const workPrompt = calls.find((call) => call.kind === 'work' && call.agentId === 'ana')!.prompt
    expect(workPrompt).toMatch(/^Task: gather the timeline/)
    const secondPlan = calls.filter((call) => call.kind === 'plan')[1]!.prompt
    expect(secondPlan).toContain('combined 1')
    expect(secondPlan).toContain('Name the owner of the fix.')
  })

  it('lets the leader review when there is no critic, and work when there are no workers', async () => {
    const calls: ScriptedCall[] = []
    const runMember = scriptedRunMember(
      (_member, _prompt, options) =>
        options.kind === 'critique' ? 'LGTM' : `${options.kind} done`,
      calls,
    )
    const result = await runSwarm(team([{ agentId: 'lead', role: 'leader' }]), 'Do it', {
      agents: [makeAgent({ id: 'lead' })],
      runMember,
    })
    expect(result.approved).toBe(true)
    expect(calls.map((call) => `${call.kind}:${call.agentId}`)).toEqual([
      'plan:lead',
      'work:lead',
      'critique:lead',
    ])
    expect(result.output).toBe('work done')
  })
})
