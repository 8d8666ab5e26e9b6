import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { makeAgent } from '../swarm/__fixtures__/agents'
import { runSwarm } from '../swarm/run-swarm'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => provider.register())
afterEach(() => exporter.reset())
afterAll(() => provider.shutdown())

const voters = [
  makeAgent({ id: 'ana', persona: '[[json:{"proposal":1}]]' }),
  makeAgent({ id: 'ben', persona: '[[json:{"proposal":1}]]' }),
  makeAgent({ id: 'cleo', persona: '[[json:{"proposal":0}]]' }),
]
const swarm = {
  id: 'council',
  name: 'Council',
  strategy: 'democratic' as const,
  maxRounds: 3,
  agents: voters.map((agent) => ({ agentId: agent.id, role: 'worker' as const })),
}

describe('swarm rounds on the workflow span', () => {
  it('puts each round start and finish, with the consensus, on the swarm run’s span, its members’ calls under it', async () => {
    const result = await runSwarm(swarm, 'Choose', { agents: voters, runId: 'swarm-run-1' })
    expect(result).toMatchObject({ status: 'done', consensusReached: true })
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const workflow = spans.find((span) => span.name === 'invoke_workflow Council')
    expect(workflow?.attributes).toMatchObject({
      'baton.run.id': 'swarm-run-1',
      'baton.run.kind': 'swarm',
      'baton.swarm.id': 'council',
      'baton.swarm.strategy': 'democratic',
    })
    const rounds = workflow?.events.filter((event) => event.name.startsWith('baton.swarm.round'))
    expect(rounds?.map((event) => [event.name, event.attributes])).toEqual(
      result.rounds.flatMap((round) => [
        ['baton.swarm.round.start', { 'baton.swarm.round': round.round }],
        [
          'baton.swarm.round.finish',
          {
            'baton.swarm.round': round.round,
            'baton.swarm.consensus_reached': round.consensusReached,
          },
        ],
      ]),
    )
    expect(rounds?.at(-1)?.attributes?.['baton.swarm.consensus_reached']).toBe(true)
    // Every member's call is an invoke_agent span of the run's workflow.
    const members = spans.filter(
      (span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent',
    )
    expect(new Set(members.map((span) => span.attributes['gen_ai.agent.name']))).toEqual(
      new Set(['Ana', 'Ben', 'Cleo']),
    )
    for (const member of members) {
      expect(member.parentSpanContext?.spanId).toBe(workflow?.spanContext().spanId)
    }
  })
})
