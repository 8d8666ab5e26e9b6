import { describe, expect, it } from 'vitest'
import { createMemoryConclave } from '../conclave/create-memory-conclave'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { DRAFT_KEY } from './run-collaborative'
import { runSwarm } from './run-swarm'

const agents = [makeAgent({ id: 'ana' }), makeAgent({ id: 'ben' }), makeAgent({ id: 'lead' })]
const swarm = (
  members: {
    agentId: string
    role: 'leader' | 'worker'
    priority?: number
    canTerminate?: boolean
  }[],
  maxRounds = 3,
) => ({
  id: 'writers',
  name: 'Writers',
  strategy: 'collaborative' as const,
  maxRounds,
  agents: members,
})

// Each member appends its name to the draft it was shown.
const appendName = (calls: ScriptedCall[], done?: (agentId: string, round: number) => boolean) =>
  scriptedRunMember((member, prompt, options) => {
    if (done?.(member.agentId, options.round)) return 'DONE'
    const draft = /version \d+\):\n([\s\S]*?)\n\nImprove/.exec(prompt)?.[1] ?? ''
    return `${draft}${draft ? ' ' : ''}${member.agentId}`
  }, calls)

describe('runSwarm (collaborative)', () => {
  it('builds one draft in the conclave, in turns by priority, round after round until maxRounds', async () => {
    const calls: ScriptedCall[] = []
    const conclave = createMemoryConclave()
    const result = await runSwarm(
      swarm(
        [
          { agentId: 'ana', role: 'worker' },
          { agentId: 'ben', role: 'worker', priority: 2 },
        ],
        2,
      ),
      'Write the release note',
      { agents, runMember: appendName(calls), conclave: { store: conclave, space: 'root' } },
    )
    expect(result.status).toBe('done')
    expect(calls.map((call) => call.agentId)).toEqual(['ben', 'ana', 'ben', 'ana'])
    expect(result.output).toBe('ben ana ben ana')
    expect(result.terminatedBy).toBeUndefined()
    const entry = await conclave.read('root', DRAFT_KEY)
    expect(entry).toMatchObject({ value: 'ben ana ben ana', version: 4 })
    expect(entry?.writtenBy).toBe(agents[0]!.wallet)
  })

  it('ends early when a canTerminate member says DONE, and not when another member does', async () => {
    const calls: ScriptedCall[] = []
    const result = await runSwarm(
      swarm([
        { agentId: 'ana', role: 'worker', priority: 2 },
        { agentId: 'ben', role: 'worker', canTerminate: true },
      ]),
      'Write the release note',
      {
        agents,
        runMember: appendName(calls, (_agentId, round) => round === 2),
      },
    )
    // Round 2: ana's DONE is not hers to say (her turn adds nothing); ben's ends the run.
    expect(result.terminatedBy).toBe('ben')
    expect(result.rounds).toHaveLength(2)
    expect(result.output).toBe('ana ben')
  })

  it('lets the leader end the run', async () => {
    const result = await runSwarm(
      swarm([
        { agentId: 'lead', role: 'leader' },
        { agentId: 'ana', role: 'worker' },
      ]),
      'Write the release note',
      { agents, runMember: appendName([], (agentId, round) => agentId === 'lead' && round === 2) },
    )
    expect(result.terminatedBy).toBe('lead')
    expect(result.output).toBe('lead ana')
  })

  it('runs on the default member (offline model) to maxRounds with a draft', async () => {
    const result = await runSwarm(
      swarm(
        [
          { agentId: 'ana', role: 'worker' },
          { agentId: 'ben', role: 'worker' },
        ],
        1,
      ),
      'Write the release note',
      { agents },
    )
    expect(result.status).toBe('done')
    expect(result.rounds[0]?.messages.map((message) => message.agentId)).toEqual(['ana', 'ben'])
    expect(result.output.length).toBeGreaterThan(0)
  })
})
