import { describe, expect, it } from 'vitest'
import { BatonError, ValidationError } from './baton-error'

class RegistryDown extends BatonError {
  override name = 'RegistryDown'
  constructor(cause?: unknown) {
    super('REGISTRY_UNAVAILABLE', 'Registry is down.', { details: { status: 503 }, cause })
  }
}

describe('BatonError', () => {
  it('carries a stable code, a short message, details and meta lines', () => {
    const error = new BatonError('BUDGET_EXCEEDED', 'Budget "run" is spent.', {
      details: { budget: 'run' },
      metaMessages: ['Limit: 3 calls', 'Spent: 3 calls'],
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('BUDGET_EXCEEDED')
    expect(error.shortMessage).toBe('Budget "run" is spent.')
    expect(error.message).toBe('Budget "run" is spent.\n\nLimit: 3 calls\nSpent: 3 calls')
    expect(error.details).toEqual({ budget: 'run' })
    expect(error.cause).toBeUndefined()
    expect(new BatonError('X', 'x').details).toEqual({})
  })

  describe('isInstance', () => {
    it('recognizes Baton errors and their subclasses', () => {
      expect(BatonError.isInstance(new BatonError('X', 'x'))).toBe(true)
      expect(BatonError.isInstance(new RegistryDown())).toBe(true)
      expect(BatonError.isInstance(new ValidationError('input', []))).toBe(true)
    })

    it('recognizes an error from another installed copy of the package by its marker', () => {
      // A second copy has its own BatonError class; only the registered symbol is shared.
      const copyMarker: unique symbol = Symbol.for('baton.error') as never
      class CopiedBatonError extends Error {
        readonly [copyMarker] = true
        readonly code = 'UNREGISTERED_AGENT'
      }
      const copied = new CopiedBatonError('from the other copy')
      expect(copied instanceof BatonError).toBe(false)
      expect(BatonError.isInstance(copied)).toBe(true)
      expect(BatonError.isInstance({ [Symbol.for('baton.error')]: true })).toBe(true)
    })

    it('refuses everything else', () => {
      for (const value of [
        new Error('plain'),
        { code: 'UNREGISTERED_AGENT' },
        { [Symbol('baton.error')]: true },
        'BatonError',
        null,
        undefined,
        42,
      ]) {
        expect(BatonError.isInstance(value)).toBe(false)
      }
    })
  })

  describe('walk', () => {
    it('returns the deepest cause without a predicate', () => {
      const root = new Error('ECONNREFUSED')
      const error = new RegistryDown(new BatonError('NETWORK', 'fetch failed', { cause: root }))
      expect(error.walk()).toBe(root)
      expect(new BatonError('X', 'x').walk()).toBeInstanceOf(BatonError)
    })

    it('returns the first error the predicate accepts, starting with itself, or null', () => {
      const inner = new RegistryDown(new Error('socket hang up'))
      const outer = new BatonError('DELEGATION_FAILED', 'Delegation failed.', { cause: inner })
      expect(outer.walk((error) => (error as BatonError).code === 'REGISTRY_UNAVAILABLE')).toBe(
        inner,
      )
      expect(outer.walk((error) => error === outer)).toBe(outer)
      expect(outer.walk((error) => (error as Error).message === 'nothing like this')).toBeNull()
    })

    it('stops at a cause that is not an object, and on a cycle', () => {
      expect(new BatonError('X', 'x', { cause: 'just text' }).walk()).toBe('just text')
      const first = new BatonError('A', 'a')
      const second = new BatonError('B', 'b', { cause: first })
      ;(first as { cause?: unknown }).cause = second
      expect(first.walk((error) => error === 'never')).toBeNull()
      expect([first, second]).toContain(first.walk())
    })
  })

  it('serializes to name, code, short message and details, without cause or stack', () => {
    const error = new RegistryDown(new Error('secret internal detail'))
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'RegistryDown',
      code: 'REGISTRY_UNAVAILABLE',
      message: 'Registry is down.',
      details: { status: 503 },
    })
  })
})

describe('ValidationError', () => {
  it('lists every issue by path in its message and keeps them as data', () => {
    const issues = [
      { path: 'agents[1].role', message: 'a swarm may have one leader' },
      { path: '', message: 'expected an object' },
    ]
    const error = new ValidationError('swarm', issues)
    expect(error.code).toBe('VALIDATION_FAILED')
    expect(error.message).toBe(
      'Invalid swarm: agents[1].role: a swarm may have one leader; expected an object',
    )
    expect(error.issues).toEqual(issues)
    expect(error.details).toEqual({ what: 'swarm', issues })
  })
})
