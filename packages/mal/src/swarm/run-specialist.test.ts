import { describe, expect, it } from 'vitest'
import { makeAgent } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const agents = [
  makeAgent({ id: 'writer', capabilities: ['copywriting', 'blog-posts'] }),
  makeAgent({
    id: 'auditor',
    type: 'specialist',
    capabilities: ['security-review', 'dependency-audit'],
    agentCard: { capabilityDescription: 'Finds vulnerabilities in TypeScript code.' },
  }),
  makeAgent({ id: 'tester', capabilities: ['unit-tests', 'code-review'] }),
  makeAgent({ id: 'watcher', capabilities: ['security-review', 'vulnerabilities'] }),
]

const swarm = {
  id: 'guild',
  name: 'Guild',
  strategy: 'specialist' as const,
  agents: [
    { agentId: 'writer', role: 'specialist' as const },
    { agentId: 'auditor', role: 'specialist' as const },
    { agentId: 'tester', role: 'specialist' as const },
    { agentId: 'watcher', role: 'observer' as const },
  ],
}

describe('runSwarm (specialist)', () => {
  it('gives the task to the member whose capabilities and card fit it best (offline model)', async () => {
    const result = await runSwarm(
      swarm,
      'Run a security review of the TypeScript code for vulnerabilities',
      {
        agents,
      },
    )
    expect(result.status).toBe('done')
    expect(result.rounds).toHaveLength(1)
    expect(
      result.rounds[0]!.messages.map((message) => `${message.kind}:${message.agentId}`),
    ).toEqual(['assignment:auditor', 'work:auditor', 'result:auditor'])
    expect(result.output).toContain('Auditor (specialist)')
    // The observer matches best but only watches; only the chosen member spends.
    expect(Object.keys(result.usageByAgent)).toEqual(['auditor'])
  })

  it('breaks a tie in favour of the member listed first', async () => {
    const result = await runSwarm(swarm, 'Bake a cake', { agents })
    expect(result.rounds[0]!.messages[0]).toMatchObject({ kind: 'assignment', agentId: 'writer' })
  })
})
