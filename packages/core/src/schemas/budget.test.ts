import { describe, expect, it } from 'vitest'
import { issuesFor, pathsFor } from './__fixtures__/issues'
import { Budget, Usage } from './budget'

describe('Budget', () => {
  it('normalizes the cost and seconds spellings, leaving out what is unlimited', () => {
    expect(Budget.parse({ calls: 10, cost: 0.25, seconds: 1.5 })).toEqual({
      calls: 10,
      costUsd: 0.25,
      maxWallMs: 1500,
    })
    expect(Budget.parse({ tokens: 0 })).toEqual({ tokens: 0 })
    expect(Budget.parse({})).toEqual({})
  })

  it('accepts both spellings when they agree', () => {
    expect(Budget.parse({ cost: 1, costUsd: 1, seconds: 2, maxWallMs: 2000 })).toEqual({
      costUsd: 1,
      maxWallMs: 2000,
    })
  })

  it('refuses both spellings when they disagree', () => {
    expect(issuesFor(Budget, { cost: 1, costUsd: 2, seconds: 1, maxWallMs: 5 })).toEqual([
      { path: 'cost', message: 'give either cost or costUsd, not both' },
      { path: 'seconds', message: 'give either seconds or maxWallMs, not both' },
    ])
  })

  it.each([
    ['negative calls', { calls: -1 }, ['calls']],
    ['fractional calls', { calls: 2.5 }, ['calls']],
    ['fractional tokens', { tokens: 10.5 }, ['tokens']],
    ['a negative cost', { cost: -0.01 }, ['cost']],
    ['an infinite costUsd', { costUsd: Number.POSITIVE_INFINITY }, ['costUsd']],
    ['NaN seconds', { seconds: Number.NaN }, ['seconds']],
    ['a string limit', { maxWallMs: '100' }, ['maxWallMs']],
    ['an unknown key', { dollars: 5 }, ['']],
  ])('refuses %s, naming the field', (_label, input, paths) => {
    expect(pathsFor(Budget, input)).toEqual(paths)
  })
})

describe('Usage', () => {
  it('defaults what was not reported to zero', () => {
    expect(Usage.parse({ tokens: 12 })).toEqual({ calls: 0, tokens: 12, costUsd: 0 })
  })

  it('refuses negative or fractional counts, naming each field', () => {
    expect(
      pathsFor(Usage, { calls: -1, tokens: 1.5, inputTokens: -2, outputTokens: 'x', costUsd: -1 }),
    ).toEqual(['calls', 'tokens', 'inputTokens', 'outputTokens', 'costUsd'])
  })
})
