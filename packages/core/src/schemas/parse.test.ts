import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BatonError, ValidationError } from '../errors/baton-error'
import { formatPath, parseWith } from './parse'

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

describe('formatPath', () => {
  it('writes keys with dots and indexes in brackets', () => {
    expect(formatPath(['agents', 1, 'role'])).toBe('agents[1].role')
    expect(formatPath([0, 'id'])).toBe('[0].id')
    expect(formatPath([])).toBe('')
  })
})
