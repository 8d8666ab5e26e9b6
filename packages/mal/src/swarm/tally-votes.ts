import type { SwarmTally } from './types'

/**
 * Adds up weighted votes. An abstention (`undefined`) still counts in the total weight, so
 * consensus means "this share of everyone who may vote", not of those who managed to.
 *
 * @example
 * tallyVotes([{ vote: 0, weight: 1 }, { vote: undefined, weight: 0.5 }], 2)
 * // { weights: [1, 0], abstained: 0.5, totalWeight: 1.5, leading: 0 }
 */
export function tallyVotes(
  votes: { vote: number | undefined; weight: number }[],
  proposals: number,
): SwarmTally {
  const weights = Array.from({ length: proposals }, () => 0)
  let abstained = 0
  for (const { vote, weight } of votes) {
    if (vote === undefined) abstained += weight
    else weights[vote] = (weights[vote] ?? 0) + weight
  }
  const totalWeight = votes.reduce((sum, { weight }) => sum + weight, 0)
  let leading = 0
  weights.forEach((weight, index) => {
    if (weight > (weights[leading] ?? 0)) leading = index
  })
  return { weights, abstained, totalWeight, leading }
}

/**
 * Whether the leading proposal has at least `threshold` of the total weight (and any at all).
 *
 * @example
 * hasConsensus(tallyVotes([{ vote: 0, weight: 2 }, { vote: 1, weight: 1 }], 2), 0.6) // true
 */
export function hasConsensus(tally: SwarmTally, threshold: number): boolean {
  const leading = tally.weights[tally.leading] ?? 0
  return tally.totalWeight > 0 && leading > 0 && leading >= threshold * tally.totalWeight - 1e-9
}
