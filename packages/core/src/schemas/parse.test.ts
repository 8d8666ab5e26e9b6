import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentInput } from '../agent/__fixtures__/make-agent'
import { BatonError, ValidationError } from '../errors/baton-error'
import { Agent } from './agent'
import { formatPath, parseWith } from './parse'
import { AgentSwarm } from './swarm'
import { unknownKeys } from './unknown-keys'

describe('parseWith', () => {
  it('returns the parsed output', () => {
    expect(parseWith(z.object({ n: z.coerce.number() }), { n: '4' }, 'count')).toEqual({ n: 4 })
  })

  it('throws a ValidationError naming what was parsed and every bad field', () => {
    const schema = z.object({ agents: z.array(z.object({ role: z.enum(['leader', 'worker']) })) })
    let caught: unknown
    try {
      parseWith(schema, { agents: [{ role: 'leader' }, { role: 'boss' }] }, 'swarm')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ValidationError)
    const error = caught as ValidationError
    expect(BatonError.isInstance(error)).toBe(true)
    expect(error.code).toBe('VALIDATION_FAILED')
    expect(error.issues).toEqual([
      { path: 'agents[1].role', message: 'Invalid option: expected one of "leader"|"worker"' },
    ])
    expect(error.message).toBe(
      'Invalid swarm: agents[1].role: Invalid option: expected one of "leader"|"worker"',
    )
    expect(error.details).toMatchObject({ what: 'swarm', issues: error.issues })
  })
})

describe('parseWith with unknownKeys: refuse', () => {
  const swarm = {
    id: 'review',
    name: 'Review',
    strategy: 'democratic',
    agents: [{ agentId: 'analyst', role: 'leader' }],
  }

  it('refuses a misspelt key at any depth, naming where, where zod would drop it', () => {
    // Stripped, the swarm has no trust floor and the member its default weight.
    const misspelt = {
      ...swarm,
      minTrustTeir: 'high',
      agents: [{ agentId: 'analyst', role: 'leader', wieght: 0.2 }],
    }
    expect(parseWith(AgentSwarm, misspelt, 'swarm').minTrustTier).toBeUndefined()
    expect(() => parseWith(AgentSwarm, misspelt, 'swarm', { unknownKeys: 'refuse' })).toThrow(
      'Invalid swarm: agents[0].wieght: is not a known field; minTrustTeir: is not a known field',
    )
  })

  it('names unknown keys beside the schema own issues, and passes what has none', () => {
    let caught: unknown
    try {
      parseWith(AgentSwarm, { ...swarm, strategy: 'vote', maxRound: 2 }, 'swarm', {
        unknownKeys: 'refuse',
      })
    } catch (error) {
      caught = error
    }
    expect((caught as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'strategy',
      'maxRound',
    ])
    expect(parseWith(AgentSwarm, swarm, 'swarm', { unknownKeys: 'refuse' })).toMatchObject(swarm)
  })

  it('looks through pipes, defaults and optional fields, and not into records or loose objects', () => {
    const agent = agentInput({
      agentCard: { canDelagate: true },
      config: { anything: { goes: 1 } },
    })
    expect(unknownKeys(Agent, agent)).toEqual([['agentCard', 'canDelagate']])
    const loose = z.object({ known: z.looseObject({ a: z.string() }) })
    expect(unknownKeys(loose, { known: { a: 'x', extra: 1 } })).toEqual([])
    // A strict object refuses its own unknown keys: told once, by zod.
    const strict = z.object({ inner: z.strictObject({ a: z.string() }) })
    expect(unknownKeys(strict, { inner: { a: 'x', extra: 1 } })).toEqual([])
    expect(() =>
      parseWith(strict, { inner: { a: 'x', extra: 1 } }, 'input', { unknownKeys: 'refuse' }),
    ).toThrow('Invalid input: inner: Unrecognized key: "extra"')
    const union = z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])
    expect(unknownKeys(union, { b: 'x' })).toEqual([])
    expect(unknownKeys(union, { b: 'x', c: 1 })).toEqual([['c']])
    // A key named like an object's inherited member is unknown too, not looked up on the shape.
    expect(
      unknownKeys(
        union,
        JSON.parse('{"b": "x", "constructor": {}, "toString": 1, "__proto__": 2}'),
      ),
    ).toEqual([['constructor'], ['toString'], ['__proto__']])
  })
})

describe('formatPath', () => {
  it('writes keys with dots and indexes in brackets', () => {
    expect(formatPath(['agents', 1, 'role'])).toBe('agents[1].role')
    expect(formatPath([0, 'id'])).toBe('[0].id')
    expect(formatPath([])).toBe('')
  })
})
