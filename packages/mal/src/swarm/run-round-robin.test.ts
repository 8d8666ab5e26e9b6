import { describe, expect, it } from 'vitest'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = ['ana', 'ben', 'cleo', 'dev'].map((id) =>
  makeAgent({ id, persona: `[[answer:${id} version]]` }),
)
const swarm = {
  id: 'relay',
  name: 'Relay',
  strategy: 'round-robin' as const,
  maxRounds: 2,
  agents: [
    { agentId: 'cleo', role: 'worker' as const },
    { agentId: 'dev', role: 'observer' as const },
    { agentId: 'ana', role: 'worker' as const },
    { agentId: 'ben', role: 'worker' as const },
  ],
}

describe('runSwarm (round-robin)', () => {
  it('gives every member a turn in listed order each round, each building on the last', async () => {
    const calls: ScriptedCall[] = []
    const runMember = scriptedRunMember(
      (member, _prompt, options) => `${member.agentId}@${options.round}`,
      calls,
    )
    const result = await runSwarm(swarm, 'Name the product', { agents, runMember })
    expect(calls.map((call) => `${call.round}:${call.agentId}`)).toEqual([
      '1:cleo',
      '1:ana',
      '1:ben',
      '2:cleo',
      '2:ana',
      '2:ben',
    ])
    expect(calls[0]!.prompt).toContain('You go first')
    expect(calls[3]!.prompt).toContain('The answer so far, from ben (Ben):\nben@1')
    expect(result.output).toBe('ben@2')
    expect(result.rounds[1]!.messages.at(-1)).toEqual({
      kind: 'result',
      agentId: 'ben',
      content: 'ben@2',
    })
  })

  it('runs on the offline model through runAgent by default', async () => {
    const result = await runSwarm(swarm, 'Name the product', { agents })
    expect(result.status).toBe('done')
    expect(
      result.rounds.flatMap((round) => round.messages.map((message) => message.content)),
    ).toEqual([
      'cleo version',
      'ana version',
      'ben version',
      'cleo version',
      'ana version',
      'ben version',
      'ben version',
    ])
    expect(result.usage.calls).toBe(6)
    expect(result.usage.costUsd).toBeGreaterThan(0)
  })
})
