import { describe, expect, it } from 'vitest'
import { Agent, type AgentInput } from '../schemas'
import type { A2AAgentCard } from './a2a-agent-card'
import { fromA2AAgentCard } from './from-a2a-agent-card'
import { toA2AAgentCard } from './to-a2a-agent-card'

const analyst = (overrides: Partial<AgentInput> = {}) =>
  Agent.parse({
    id: 'analyst',
    wallet: '0x52908400098527886e0f7030069857d2e4169ee7',
    creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    name: 'Incident Analyst',
    description: 'Reads incident reports.',
    type: 'specialist',
    model: 'offline:default',
    capabilities: ['incident-review', 'root-cause'],
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    agentCard: {
      tagline: 'Finds what broke',
      capabilityDescription: 'Reviews incidents and names their root cause.',
      trustTier: 'high',
      examples: ['Review yesterday’s incidents', 'Why did checkout fail?'],
    },
    ...overrides,
  } satisfies AgentInput)

const url = 'http://127.0.0.1:8787/a2a/analyst'

describe('toA2AAgentCard', () => {
  it('builds a v1.0 card with a JSON-RPC interface, streaming and one skill per capability', () => {
    const card = toA2AAgentCard(analyst(), { url, version: '2.1.0' })
    expect(card).toMatchObject({
      name: 'Incident Analyst',
      description: 'Reviews incidents and names their root cause.',
      version: '2.1.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
    })
    expect(card.skills.map((skill) => skill.id)).toEqual(['incident-review', 'root-cause'])
    expect(card.skills[0]?.examples).toEqual([
      'Review yesterday’s incidents',
      'Why did checkout fail?',
    ])
    expect(card.securitySchemes).toBeUndefined()
  })

  it('gives an agent without capabilities one skill: the agent itself', () => {
    const card = toA2AAgentCard(analyst({ capabilities: [] }), { url })
    expect(card.skills).toEqual([
      {
        id: 'analyst',
        name: 'Incident Analyst',
        description: 'Reviews incidents and names their root cause.',
        tags: ['specialist'],
        examples: ['Review yesterday’s incidents', 'Why did checkout fail?'],
      },
    ])
  })

  it('declares and requires a bearer scheme when asked to', () => {
    const card = toA2AAgentCard(analyst(), { url, bearer: true })
    expect(card.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) },
    })
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }])
  })

  it('falls back from the capability description to the tagline, then the description', () => {
    const bare = analyst({ agentCard: { tagline: 'Finds what broke' } })
    expect(toA2AAgentCard(bare, { url }).description).toBe('Finds what broke')
    expect(toA2AAgentCard(analyst({ agentCard: {} }), { url }).description).toBe(
      'Reads incident reports.',
    )
  })
})

describe('fromA2AAgentCard', () => {
  it('reads back what toA2AAgentCard wrote', () => {
    const agent = analyst()
    const fields = fromA2AAgentCard(toA2AAgentCard(agent, { url }))
    expect(fields).toEqual({
      name: agent.name,
      description: agent.agentCard.capabilityDescription,
      capabilities: agent.capabilities,
      agentCard: {
        capabilityDescription: agent.agentCard.capabilityDescription,
        a2aVersion: '1.0',
        examples: agent.agentCard.examples,
      },
      jsonRpcUrl: url,
      streaming: true,
    })
  })

  it('reads a foreign card: skill tags as capabilities, the JSON-RPC interface among others', () => {
    const card: A2AAgentCard = {
      name: 'Weather',
      description: 'Forecasts',
      version: '0.9.0',
      supportedInterfaces: [
        { url: 'https://weather.example/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'https://weather.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        { id: 'f', name: 'Forecast', description: '', tags: ['weather', 'forecast'] },
        { id: 'a', name: 'Alerts', description: '', tags: [], examples: ['Storms today?'] },
        { id: 'w', name: 'Wind', description: '', tags: ['weather'] },
      ],
    }
    expect(fromA2AAgentCard(card)).toMatchObject({
      capabilities: ['weather', 'forecast', 'Alerts'],
      agentCard: { examples: ['Storms today?'], a2aVersion: '1.0' },
      jsonRpcUrl: 'https://weather.example/rpc',
      streaming: false,
    })
  })

  it('maps a Baton card to A2A and back to the same A2A card', () => {
    const card = toA2AAgentCard(analyst(), { url })
    const fields = fromA2AAgentCard(card)
    const again = toA2AAgentCard(
      analyst({
        name: fields.name,
        capabilities: fields.capabilities,
        agentCard: { ...fields.agentCard },
      }),
      { url },
    )
    expect(again).toEqual(card)
  })
})
