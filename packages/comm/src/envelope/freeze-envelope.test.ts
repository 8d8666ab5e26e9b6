import { describe, expect, it } from 'vitest'
import { buildEnvelope } from './build-envelope'
import { Envelope } from './envelope'
import { blankEnvelope, freezeEnvelope, isCheckedEnvelope } from './freeze-envelope'

const draft = { from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'review' }

describe('freezeEnvelope', () => {
  it('builds envelopes that are frozen, checked, and plain to JSON and to a copy', () => {
    const envelope = buildEnvelope({ ...draft, inReplyTo: 'msg_1', hop: 2 }, () => 0)
    expect(isCheckedEnvelope(envelope)).toBe(true)
    expect(Object.isFrozen(envelope)).toBe(true)
    expect(Object.isFrozen(envelope.from)).toBe(true)
    expect(() => {
      ;(envelope as { content: string }).content = 'changed'
    }).toThrow(TypeError)
    // A copy, or the envelope through JSON, is not checked: the bus parses it again.
    expect(isCheckedEnvelope({ ...envelope })).toBe(false)
    expect(isCheckedEnvelope(JSON.parse(JSON.stringify(envelope)))).toBe(false)
    expect(Object.keys(envelope)).toEqual([
      'id',
      'from',
      'to',
      'content',
      'type',
      'correlationId',
      'hop',
      'createdAt',
      'inReplyTo',
    ])
    expect(Envelope.parse(envelope)).toEqual({ ...envelope })
  })

  it('copies a plain envelope before freezing it, and leaves the original alone', () => {
    const plain = Envelope.parse({ ...buildEnvelope(draft, () => 0) })
    const frozen = freezeEnvelope(plain)
    expect(isCheckedEnvelope(frozen)).toBe(true)
    expect(frozen).toEqual(plain)
    expect(Object.isFrozen(plain)).toBe(false)
    expect(isCheckedEnvelope(plain)).toBe(false)
  })

  it('does not count an envelope still being filled in as checked', () => {
    const blank = blankEnvelope()
    expect(isCheckedEnvelope(blank)).toBe(false)
  })
})
