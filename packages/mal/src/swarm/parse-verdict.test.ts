import { describe, expect, it } from 'vitest'
import { parseVerdict } from './parse-verdict'

describe('parseVerdict', () => {
  it('approves when the first word is APPROVED, APPROVE or LGTM, in any case or markdown', () => {
    expect(parseVerdict('APPROVED. Ship it.').approved).toBe(true)
    expect(parseVerdict('**Approve** — good').approved).toBe(true)
    expect(parseVerdict('  lgtm').approved).toBe(true)
    expect(parseVerdict('{"approved": true}').approved).toBe(true)
  })

  it('refuses to approve an answer that only mentions approval', () => {
    expect(parseVerdict('Not approved: the owner is missing.')).toEqual({
      approved: false,
      critique: 'Not approved: the owner is missing.',
    })
    expect(parseVerdict('Reviewer (reviewer): reply with APPROVED first').approved).toBe(false)
    expect(parseVerdict('APPROVEDISH').approved).toBe(false)
    expect(parseVerdict('{"approved": false, "critique": "Add dates."}')).toEqual({
      approved: false,
      critique: 'Add dates.',
    })
  })
})
