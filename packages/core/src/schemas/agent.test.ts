import { describe, expect, it } from 'vitest'
import { ValidationError } from '../errors/baton-error'
import { issuesFor, pathsFor } from './__fixtures__/issues'
import { Agent, type AgentInput, ModelRef, Slug } from './agent'
import { parseWith } from './parse'

const wallet = '0x52908400098527886e0f7030069857d2e4169ee7'
const creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

function agent(overrides: Record<string, unknown> = {}): AgentInput {
  return {
    id: 'ops-orchestrator',
    wallet,
    creator,
    name: 'Ops Orchestrator',
    type: 'orchestrator',
    model: 'openai:gpt-4o-mini',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00+02:00',
    ...overrides,
  } as AgentInput
}

describe('Agent', () => {
  it('parses a minimal agent, filling defaults and checksumming wallets', () => {
    const parsed = parseWith(Agent, agent(), 'agent')
    expect(parsed).toMatchObject({
      wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
      creator,
      provider: 'openai',
      description: '',
      capabilities: [],
      tools: [],
      // An agent's own memory by default: its wallet.
      memoryScope: '0x52908400098527886E0F7030069857D2E4169EE7',
      maxIterations: 8,
      temperature: 0.2,
      status: 'idle',
      config: {},
      agentCard: {
        tagline: '',
        trustTier: 'low',
        canDelegate: false,
        a2aVersion: '0.3.0',
        examples: [],
      },
    })
    expect(parsed.endpoint).toBeUndefined()
  })

  it('turns Date timestamps into ISO strings', () => {
    const parsed = Agent.parse(agent({ createdAt: new Date(Date.UTC(2026, 0, 5)) }))
    expect(parsed.createdAt).toBe('2026-01-05T00:00:00.000Z')
  })

  it('gives each parsed agent its own defaults', () => {
    const first = Agent.parse(agent())
    first.tools.push('shell')
    first.agentCard.examples.push('hi')
    const second = Agent.parse(agent())
    expect(second.tools).toEqual([])
    expect(second.agentCard.examples).toEqual([])
  })

  it('throws a ValidationError that names what was parsed', () => {
    expect(() => parseWith(Agent, agent({ id: 'Bad Id' }), 'agent')).toThrow(ValidationError)
    expect(() => parseWith(Agent, agent({ id: 'Bad Id' }), 'agent')).toThrow(/^Invalid agent: id: /)
  })

  it.each([
    ['an id that is not a slug', { id: 'Ops Orchestrator' }, 'id'],
    ['an id starting with a dash', { id: '-ops' }, 'id'],
    ['an empty id', { id: '' }, 'id'],
    ['a malformed wallet', { wallet: '0x1234' }, 'wallet'],
    [
      'a wallet with a wrong checksum',
      { wallet: '0x52908400098527886E0F7030069857D2E4169ee7' },
      'wallet',
    ],
    ['a malformed creator', { creator: 'alice' }, 'creator'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown type', { type: 'manager' }, 'type'],
    ['a model without a provider', { model: 'gpt-4o-mini' }, 'model'],
    ['a model with an empty id', { model: 'openai:' }, 'model'],
    ['a model id with spaces', { model: 'openai: gpt 4o' }, 'model'],
    ['an uppercase provider', { model: 'OpenAI:gpt-4o' }, 'model'],
    ['a provider that does not match the model', { provider: 'anthropic' }, 'provider'],
    ['an endpoint that is not a URL', { endpoint: 'agents/ops' }, 'endpoint'],
    ['an endpoint that is not http(s)', { endpoint: 'javascript:alert(1)' }, 'endpoint'],
    ['a file endpoint', { endpoint: 'file:///etc/passwd' }, 'endpoint'],
    ['a temperature above 2', { temperature: 2.5 }, 'temperature'],
    ['a negative temperature', { temperature: -0.1 }, 'temperature'],
    ['zero iterations', { maxIterations: 0 }, 'maxIterations'],
    ['fractional iterations', { maxIterations: 2.5 }, 'maxIterations'],
    ['an unknown status', { status: 'sleeping' }, 'status'],
    ['a timestamp that is not ISO', { createdAt: 'yesterday' }, 'createdAt'],
    ['a timestamp without an offset', { updatedAt: '2026-01-05 10:00' }, 'updatedAt'],
    ['a tool that is not a string', { tools: ['search', 7] }, 'tools[1]'],
    [
      'a bad trust tier in the card',
      { agentCard: { trustTier: 'absolute' } },
      'agentCard.trustTier',
    ],
  ])('refuses %s, naming the field', (_label, overrides, path) => {
    expect(new Set(pathsFor(Agent, agent(overrides)))).toEqual(new Set([path]))
  })

  it('names every missing field at once', () => {
    expect(pathsFor(Agent, {})).toEqual([
      'id',
      'wallet',
      'creator',
      'name',
      'type',
      'model',
      'createdAt',
      'updatedAt',
    ])
  })

  it('refuses something that is not an object', () => {
    expect(issuesFor(Agent, null)).toEqual([
      { path: '', message: 'Invalid input: expected object, received null' },
    ])
  })
})

describe('ModelRef', () => {
  it('accepts provider:model-id, including ids that contain colons', () => {
    for (const model of ['offline:default', 'openai:gpt-4o-mini', 'ollama:llama3.1:8b']) {
      expect(ModelRef.parse(model)).toBe(model)
    }
  })
})

describe('Slug', () => {
  it('accepts lowercase letters, digits, dashes and underscores', () => {
    expect(Slug.parse('analyst_2-eu')).toBe('analyst_2-eu')
    expect(pathsFor(Slug, 'x'.repeat(65))).toEqual([''])
  })
})
