import { describe, expect, it } from 'vitest'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = [makeAgent({ id: 'ana' }), makeAgent({ id: 'ben' }), makeAgent({ id: 'cy' })]
const swarm = (communication?: 'broadcast' | 'direct') => ({
  id: 'trio',
  name: 'Trio',
  strategy: 'round-robin' as const,
  maxRounds: 1,
  agents: [
    { agentId: 'ana', role: 'worker' as const },
    { agentId: 'ben', role: 'worker' as const },
    { agentId: 'cy', role: 'worker' as const },
  ],
  ...(communication ? { communication } : {}),
})

async function promptsOf(communication?: 'broadcast' | 'direct') {
  const calls: ScriptedCall[] = []
  await runSwarm(swarm(communication), 'Name the risks', {
    agents,
    runMember: scriptedRunMember(
      (member) => `${member.agentId} says risk ${member.agentId}`,
      calls,
    ),
  })
  return calls
}

describe('communication', () => {
  it('direct: a member hears only what is addressed to it (the turn before its own)', async () => {
    const cy = (await promptsOf('direct')).find((call) => call.agentId === 'cy')!
    expect(cy.prompt).toContain('ben says risk ben')
    expect(cy.prompt).not.toContain('ana says risk ana')
  })

  it('broadcast: a member hears everything the rest of the team said', async () => {
    const cy = (await promptsOf('broadcast')).find((call) => call.agentId === 'cy')!
    expect(cy.prompt).toContain('What the rest of the team has said so far')
    expect(cy.prompt).toContain('ana (work): ana says risk ana')
    expect(cy.prompt).toContain('ben says risk ben')
  })

  it('unset behaves as direct', async () => {
    const cy = (await promptsOf()).find((call) => call.agentId === 'cy')!
    expect(cy.prompt).not.toContain('ana says risk ana')
  })
})
