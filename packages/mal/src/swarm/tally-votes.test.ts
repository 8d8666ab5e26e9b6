import { describe, expect, it } from 'vitest'
import { hasConsensus, tallyVotes } from './tally-votes'

describe('tallyVotes', () => {
  it('weighs votes, counts abstentions in the total and breaks ties toward the earliest', () => {
    const tally = tallyVotes(
      [
        { vote: 1, weight: 0.5 },
        { vote: 0, weight: 0.5 },
        { vote: undefined, weight: 1 },
      ],
      2,
    )
    expect(tally).toEqual({ weights: [0.5, 0.5], abstained: 1, totalWeight: 2, leading: 0 })
    expect(hasConsensus(tally, 0.25)).toBe(true)
    expect(hasConsensus(tally, 0.3)).toBe(false)
  })

  it('refuses consensus when nobody voted, even at threshold 0', () => {
    const tally = tallyVotes([{ vote: undefined, weight: 1 }], 1)
    expect(hasConsensus(tally, 0)).toBe(false)
  })
})
