import { describe, expect, it } from 'vitest'
import { createMemoryConclave } from '../conclave/create-memory-conclave'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = [makeAgent({ id: 'ana' }), makeAgent({ id: 'ben' })]
const swarm = (extra: object) => ({
  id: 'pair',
  name: 'Pair',
  strategy: 'round-robin' as const,
  maxRounds: 1,
  agents: [
    { agentId: 'ana', role: 'worker' as const },
    { agentId: 'ben', role: 'worker' as const },
  ],
  ...extra,
})

describe('sharedContext and communication', () => {
  it('shows members the conclave in every prompt with sharedContext, and not without', async () => {
    const store = createMemoryConclave()
    await store.write('root', 'facts', 'the outage began at 09:12', { writtenBy: '0xlead' })
    const seen: ScriptedCall[] = []
    const runMember = scriptedRunMember((member) => `${member.agentId} answer`, seen)
    await runSwarm(swarm({ sharedContext: true }), 'Explain', {
      agents,
      runMember,
      conclave: { store, space: 'root' },
    })
    expect(seen.every((call) => call.prompt.includes('facts (version 1, by 0xlead)'))).toBe(true)
    const unseen: ScriptedCall[] = []
    await runSwarm(swarm({}), 'Explain', {
      agents,
      runMember: scriptedRunMember((member) => `${member.agentId} answer`, unseen),
      conclave: { store, space: 'root' },
    })
    expect(unseen.some((call) => call.prompt.includes('facts'))).toBe(false)
  })

  it('with shared-memory, writes every message to the conclave for the members after it', async () => {
    const store = createMemoryConclave()
    const seen: ScriptedCall[] = []
    await runSwarm(swarm({ communication: 'shared-memory' }), 'Explain', {
      agents,
      runMember: scriptedRunMember((member) => `${member.agentId} answer`, seen),
      conclave: { store, space: 'root' },
    })
    const keys = await store.list('root')
    expect(keys.length).toBeGreaterThan(0)
    const first = await store.read('root', keys[0]!)
    expect(first).toMatchObject({ value: { agentId: 'ana', content: 'ana answer' } })
    expect(first?.writtenBy).toBe(agents[0]!.wallet)
    expect(seen[1]?.prompt).toContain("The team's shared conclave")
    expect(seen[1]?.prompt).toContain('ana answer')
  })
})
