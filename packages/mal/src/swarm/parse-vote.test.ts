import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseVote } from './parse-vote'

describe('parseVote', () => {
  it('reads a JSON vote alone, inside prose, or in a code fence', () => {
    expect(parseVote('{"proposal": 2}', 3)).toBe(2)
    expect(parseVote('After thought, {"proposal":1} is best.', 3)).toBe(1)
    expect(parseVote('```json\n{ "proposal": 0 }\n```', 3)).toBe(0)
  })

  it('reads a vote written out as words', () => {
    expect(parseVote('Proposal: 1', 2)).toBe(1)
    expect(parseVote('I back proposal #0.', 2)).toBe(0)
  })

  it('refuses junk, negative or fractional numbers, and proposals that do not exist', () => {
    expect(parseVote('I like the second one', 3)).toBeUndefined()
    expect(parseVote('{"proposal": N}', 3)).toBeUndefined()
    expect(parseVote('{"proposal": -1}', 3)).toBeUndefined()
    expect(parseVote('{"proposal": 1.5}', 3)).toBeUndefined()
    expect(parseVote('{"proposal": 3}', 3)).toBeUndefined()
    expect(parseVote('', 3)).toBeUndefined()
  })

  it('never throws and never returns anything but an existing index or undefined', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 5 }), (text, count) => {
        const vote = parseVote(text, count)
        return vote === undefined || (Number.isInteger(vote) && vote >= 0 && vote < count)
      }),
    )
  })
})
