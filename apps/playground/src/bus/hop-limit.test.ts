import type { Escalation } from '@baton/comm'
import { describe, expect, it } from 'vitest'
import { hopLimit } from './hop-limit'

function escalation(overrides: Partial<Escalation>): Escalation {
  return {
    id: 'e1',
    correlationId: 'c1',
    hops: 8,
    path: [],
    lastMessage: {
      id: 'm1',
      from: { agentId: 'a' },
      to: { agentId: 'b' },
      content: '',
      type: 'direct',
      correlationId: 'c1',
      hop: 8,
      createdAt: '2026-12-01T08:00:00.000Z',
    },
    status: 'open',
    createdAt: '2026-12-01T08:00:00.000Z',
    ...overrides,
  }
}

describe('hopLimit', () => {
  it('uses the server limit when it reports one, plus what a person allowed that chain', () => {
    const allowed = escalation({ status: 'allowed', extraHops: 2 })
    expect(hopLimit('c1', [allowed], 8)).toBe(10)
    expect(hopLimit('c2', [allowed], 8)).toBe(8)
  })

  it('takes the count a chain was held at as the limit when the server does not say', () => {
    expect(hopLimit('c2', [escalation({})], undefined)).toBe(8)
    expect(hopLimit('c2', [], undefined)).toBeUndefined()
  })
})
